/*
 * Signing with e.firma in the signer's browser (issue 29), served by apps/api/routes/signing/efirma-routes.ts
 * with node-forge's browser bundle loaded first (window.forge). The private key never leaves the page:
 *  1. read the .cer (DER X.509) and the .key (PKCS#8 DER, encrypted: PBES2 with DES-EDE3-CBC, as the SAT
 *     ships it) picked in the form; decrypt the key with the typed password (forge: WebCrypto has no 3DES);
 *  2. check the key belongs to the certificate (RSA modulus and exponent) before anything is sent;
 *  3. POST the certificate to /sign/:id/efirma/prepare: the server checks it (FIEL, validity, chain to the
 *     SAT's CAs, OCSP) and answers the DER CMS signed attributes of the document's next PDF revision;
 *  4. sign them with WebCrypto (RSASSA-PKCS1-v1_5, SHA-256; key imported as non-extractable pkcs8) and POST
 *     only the signature value to /sign/:id/efirma/complete.
 * Every refusal is shown in the document's language (texts from the page's JSON block #efirma-text).
 */
(function () {
  'use strict';
  var form = document.getElementById('efirma-form');
  if (!form) return;
  var T = JSON.parse(document.getElementById('efirma-text').textContent);
  var errBox = document.getElementById('efirma-error');
  var statusBox = document.getElementById('efirma-status');
  var button = document.getElementById('efirma-submit');
  var documentId = form.getAttribute('data-document');
  var token = form.querySelector('input[name=t]').value;

  function Refusal(code, message) {
    this.code = code;
    this.message = message || '';
  }
  function refuse(code) {
    throw new Refusal(code);
  }
  function show(code, serverMessage) {
    var text = T.errors[code] || serverMessage || T.errors.network;
    errBox.textContent = T.refused + ' ' + text;
    errBox.setAttribute('data-code', code);
    statusBox.textContent = '';
    button.disabled = false;
  }
  function binary(buffer) {
    var u = new Uint8Array(buffer);
    var s = '';
    for (var i = 0; i < u.length; i += 0x8000) s += String.fromCharCode.apply(null, u.subarray(i, i + 0x8000));
    return s;
  }
  function bytesOf(bin) {
    var u = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    return u;
  }
  function fromBase64(s) {
    return bytesOf(atob(s));
  }
  function readFile(input) {
    var f = input.files && input.files[0];
    if (!f) return Promise.resolve(null);
    if (f.arrayBuffer) return f.arrayBuffer();
    return new Promise(function (resolve, reject) {
      var r = new FileReader();
      r.onload = function () { resolve(r.result); };
      r.onerror = function () { reject(r.error); };
      r.readAsArrayBuffer(f);
    });
  }
  function post(step, body) {
    return fetch('/sign/' + encodeURIComponent(documentId) + '/efirma/' + step, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    }).then(
      function (r) {
        return r.json().then(
          function (j) {
            if (!r.ok || !j || !j.success) throw new Refusal((j && j.error && j.error.code) || 'network', j && j.error && j.error.message);
            return j.data;
          },
          function () {
            throw new Refusal(r.status === 429 ? 'rate_limit_exceeded' : 'network');
          },
        );
      },
      function () {
        throw new Refusal('network');
      },
    );
  }

  /** The certificate (forge) and the decrypted PrivateKeyInfo of the picked files, checked against each other. */
  function openFiles(cerBuffer, keyBuffer, password) {
    var cert;
    try {
      cert = window.forge.pki.certificateFromAsn1(window.forge.asn1.fromDer(binary(cerBuffer)));
    } catch (e) {
      refuse('not_certificate');
    }
    var encrypted;
    try {
      encrypted = window.forge.asn1.fromDer(binary(keyBuffer));
    } catch (e) {
      refuse('not_key');
    }
    // An EncryptedPrivateKeyInfo is SEQUENCE { AlgorithmIdentifier, OCTET STRING }.
    if (!encrypted || !encrypted.value || encrypted.value.length !== 2 || encrypted.value[1].type !== window.forge.asn1.Type.OCTETSTRING) refuse('not_key');
    var info = null;
    try {
      info = window.forge.pki.decryptPrivateKeyInfo(encrypted, password);
    } catch (e) {
      info = null; // a wrong password usually breaks the padding or the DER of the decrypted bytes
    }
    if (!info) refuse('wrong_password');
    var key;
    try {
      key = window.forge.pki.privateKeyFromAsn1(info);
    } catch (e) {
      refuse('wrong_password');
    }
    var pub = cert.publicKey;
    if (!pub || !pub.n || !key.n || pub.n.compareTo(key.n) !== 0 || pub.e.compareTo(key.e) !== 0) refuse('key_mismatch');
    return { pkcs8: bytesOf(window.forge.asn1.toDer(info).getBytes()) };
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    errBox.textContent = '';
    errBox.removeAttribute('data-code');
    var cerInput = document.getElementById('efirma-cer');
    var keyInput = document.getElementById('efirma-key');
    var password = document.getElementById('efirma-password');
    var consent = document.getElementById('efirma-consent');
    if (!window.forge || !window.crypto || !window.crypto.subtle) return show('unsupported');
    if (!cerInput.files.length || !keyInput.files.length) return show('choose_files');
    if (!password.value) return show('password_required');
    if (!consent.checked) return show('consent');
    button.disabled = true;
    statusBox.textContent = T.working;
    var started = performance.now();
    var browserMs = 0;
    var mark = performance.now();
    var cerBuffer;
    var pkcs8;
    Promise.all([readFile(cerInput), readFile(keyInput)])
      .then(function (files) {
        cerBuffer = files[0];
        pkcs8 = openFiles(files[0], files[1], password.value).pkcs8;
        browserMs += performance.now() - mark;
        return post('prepare', { t: token, certificate: btoa(binary(cerBuffer)) });
      })
      .then(function (prepared) {
        mark = performance.now();
        return window.crypto.subtle
          .importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign'])
          .then(function (key) {
            pkcs8.fill(0);
            return window.crypto.subtle.sign({ name: 'RSASSA-PKCS1-v1_5' }, key, fromBase64(prepared.signed_attributes));
          })
          .then(function (signature) {
            browserMs += performance.now() - mark;
            return post('complete', { t: token, prepare_id: prepared.prepare_id, signature: btoa(binary(signature)), consent: 'yes' });
          });
      })
      .then(function (done) {
        password.value = '';
        var main = document.getElementById('main');
        main.textContent = '';
        var card = document.createElement('div');
        card.className = 'card';
        card.id = 'efirma-done';
        card.setAttribute('data-total-ms', String(Math.round(performance.now() - started)));
        card.setAttribute('data-browser-ms', String(Math.round(browserMs)));
        var h = document.createElement('h1');
        h.textContent = done.heading;
        var p = document.createElement('p');
        p.textContent = done.text;
        card.appendChild(h);
        card.appendChild(p);
        main.appendChild(card);
        h.setAttribute('tabindex', '-1');
        h.focus();
      })
      .catch(function (e) {
        if (pkcs8) pkcs8.fill(0);
        if (e instanceof Refusal) show(e.code, e.message);
        else show('unsupported', e && e.message);
      });
  });
})();
