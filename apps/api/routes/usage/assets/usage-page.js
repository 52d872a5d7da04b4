// Draws the usage page's charts from the JSON embedded in the page (apps/api/routes/usage/page.ts), with
// its labels in the page's language. Served as a file so the page needs no inline script
// (Content-Security-Policy: script-src 'self'). The services legend is HTML in the page, not drawn here.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('usage-data').textContent);
  var brand = data.brand;
  var t = data.text;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.animation = false;
  Chart.defaults.locale = document.documentElement.lang || 'es-MX';
  var narrow = window.matchMedia('(max-width: 480px)').matches;
  var ticks = { maxRotation: 0, autoSkip: true, autoSkipPadding: 8 };
  var charts = [];
  charts.push(new Chart(document.getElementById('chart-calls'), {
    type: 'bar',
    data: {
      labels: data.daily.map(function (d) { return d.label; }),
      datasets: [
        { label: t.calls, data: data.daily.map(function (d) { return d.calls; }), backgroundColor: brand },
        { label: t.errors, data: data.daily.map(function (d) { return d.errors; }), backgroundColor: '#f04438' }
      ]
    },
    options: { maintainAspectRatio: false, scales: { x: { ticks: ticks }, y: { beginAtZero: true, ticks: { precision: 0 } } }, plugins: { legend: { labels: { boxWidth: narrow ? 12 : 40 } } } }
  }));
  var services = data.services;
  charts.push(new Chart(document.getElementById('chart-services'), {
    type: 'doughnut',
    data: {
      labels: services.length ? services.map(function (s) { return s.name; }) : [t.noCalls],
      datasets: [{ data: services.length ? services.map(function (s) { return s.calls; }) : [1], backgroundColor: services.length ? services.map(function (s) { return s.colour; }) : ['#e4e7ec'], borderColor: '#fff', borderWidth: 1 }]
    },
    options: { maintainAspectRatio: false, plugins: { legend: { display: false } } }
  }));
  charts.push(new Chart(document.getElementById('chart-burn'), {
    type: 'line',
    data: {
      labels: data.burnDown.map(function (d) { return d.label; }),
      datasets: [
        { label: t.remaining, data: data.burnDown.map(function (d) { return d.remaining; }), borderColor: brand, backgroundColor: brand, tension: 0.2, spanGaps: false },
        { label: t.projected, data: data.burnDown.map(function (d) { return d.projected; }), borderColor: '#98a2b3', borderDash: [6, 4], pointRadius: 0, spanGaps: false }
      ]
    },
    options: { maintainAspectRatio: false, scales: { x: { ticks: ticks }, y: { beginAtZero: true } }, plugins: { legend: { labels: { boxWidth: narrow ? 12 : 40 } } } }
  }));
  window.__usageCharts = charts.length;
})();
