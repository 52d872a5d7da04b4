// Draws the usage page's charts from the JSON embedded in the page (apps/api/routes/usage/page.ts).
// Served as a file so the page needs no inline script (Content-Security-Policy: script-src 'self').
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('usage-data').textContent);
  var brand = data.brand;
  var palette = [brand, '#f79009', '#12b76a', '#7a5af8', '#f04438', '#0ba5ec', '#667085', '#ee46bc'];
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.animation = false;
  var charts = [];
  charts.push(new Chart(document.getElementById('chart-calls'), {
    type: 'bar',
    data: {
      labels: data.daily.map(function (d) { return d.day.slice(5); }),
      datasets: [
        { label: 'Calls', data: data.daily.map(function (d) { return d.calls; }), backgroundColor: brand },
        { label: 'Errors', data: data.daily.map(function (d) { return d.errors; }), backgroundColor: '#f04438' }
      ]
    },
    options: { maintainAspectRatio: false, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } }
  }));
  var services = Object.keys(data.byService);
  charts.push(new Chart(document.getElementById('chart-services'), {
    type: 'doughnut',
    data: {
      labels: services.length ? services : ['no calls yet'],
      datasets: [{ data: services.length ? services.map(function (k) { return data.byService[k]; }) : [1], backgroundColor: services.length ? palette : ['#e4e7ec'] }]
    },
    options: { maintainAspectRatio: false, plugins: { legend: { position: 'bottom' } } }
  }));
  charts.push(new Chart(document.getElementById('chart-burn'), {
    type: 'line',
    data: {
      labels: data.burnDown.map(function (d) { return d.day.slice(5); }),
      datasets: [
        { label: 'Credits remaining', data: data.burnDown.map(function (d) { return d.remaining; }), borderColor: brand, backgroundColor: brand, tension: 0.2, spanGaps: false },
        { label: 'Projected at the current rate', data: data.burnDown.map(function (d) { return d.projected; }), borderColor: '#98a2b3', borderDash: [6, 4], pointRadius: 0, spanGaps: false }
      ]
    },
    options: { maintainAspectRatio: false, scales: { y: { beginAtZero: true } } }
  }));
  window.__usageCharts = charts.length;
})();
