// A bank backend that is not Go, behind obgw (OBGW_BACKEND=upstream): it
// trusts a request only with a valid X-Obgw-Context token, verified with
// the gateway's public keys (JWKS), as docs/context-token.md says a
// backend must, and answers the identity it saw. Mutual TLS: only clients
// whose certificate chains to CLIENT_CA (the gateway's) get in.
//
// Environment: PORT, JWKS_URL, AUDIENCE, TLS_CERT, TLS_KEY, CLIENT_CA,
// PATH_PREFIX (what the gateway puts in front of the path).
//
// A failing bank, for the gateway's error mapping: a verified request for
// an account id upstream-status-<code> is answered with that status and an
// HTML page (as a load balancer in front of a bank's API does), one for
// upstream-hang is never answered.
import fs from 'node:fs';
import https from 'node:https';
import { createLocalJWKSet, jwtVerify } from 'jose';

const env = process.env;

// The gateway's keys, as docs/context-token.md says: kept as long as the
// set's Cache-Control max-age (a key a rotation retired is then refused
// within it), fetched again sooner for a kid the set lacks (a rotation
// published a new key). A set that cannot be fetched is an error.
let keys = null;
let fetchedAt = 0;
let maxAgeMs = 0;
async function fetchKeys() {
  const res = await fetch(env.JWKS_URL);
  if (!res.ok) {
    throw Object.assign(new Error('JWKS: ' + res.status), { code: 'JWKS_UNAVAILABLE' });
  }
  const m = /max-age=(\d+)/.exec(res.headers.get('cache-control') || '');
  maxAgeMs = m ? Number(m[1]) * 1000 : 0;
  keys = createLocalJWKSet(await res.json());
  fetchedAt = Date.now();
}
async function jwks(protectedHeader, token) {
  if (!keys || Date.now() - fetchedAt > maxAgeMs) {
    await fetchKeys();
  }
  try {
    return await keys(protectedHeader, token);
  } catch (e) {
    if (e.code !== 'ERR_JWKS_NO_MATCHING_KEY') {
      throw e;
    }
    await fetchKeys();
    return keys(protectedHeader, token);
  }
}

// The TPP's headers the bank needs, reported as received so the test can
// hold the gateway to forwarding them unchanged.
const forwarded = ['psu-id', 'tpp-redirect-uri', 'signature', 'tpp-signature-certificate', 'x-request-id'];

// Its answers name its software, as application servers do: the gateway
// drops these headers.
const identity = { 'server': 'bank-core/7.1', 'x-powered-by': 'Express' };

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json', ...identity });
  res.end(JSON.stringify(body));
}

const server = https.createServer({
  cert: fs.readFileSync(env.TLS_CERT),
  key: fs.readFileSync(env.TLS_KEY),
  ca: fs.readFileSync(env.CLIENT_CA),
  requestCert: true,
  rejectUnauthorized: true,
}, async (req, res) => {
  const token = req.headers['x-obgw-context'];
  if (!token) {
    return answer(res, 401, { error: 'no context token' });
  }
  let verified;
  try {
    verified = await jwtVerify(token, jwks, {
      algorithms: ['EdDSA', 'ES256'],
      audience: env.AUDIENCE,
      clockTolerance: 5,
      requiredClaims: ['ver', 'tpp', 'iat', 'exp', 'requestId'],
    });
  } catch (e) {
    if (e.code === 'JWKS_UNAVAILABLE' || e.cause?.code === 'ECONNREFUSED') {
      return answer(res, 503, { error: 'JWKS_UNAVAILABLE' });
    }
    return answer(res, 401, { error: e.code || String(e) });
  }
  const { payload, protectedHeader } = verified;
  // What a backend must refuse besides: a version it does not know, a
  // token taken from another request.
  // The token's path is percent-decoded (docs/context-token.md).
  const path = decodeURIComponent(req.url.split('?')[0]);
  if (payload.ver !== 1) {
    return answer(res, 401, { error: 'unknown token version ' + payload.ver });
  }
  if (payload.method !== req.method || (env.PATH_PREFIX || '') + payload.path !== path ||
      payload.requestId !== req.headers['x-request-id']) {
    return answer(res, 401, { error: 'the token is for another request' });
  }
  const failure = /\/accounts\/upstream-(status-(\d{3})|hang)$/.exec(path);
  if (failure && failure[2]) {
    res.writeHead(Number(failure[2]), { 'content-type': 'text/html', ...identity });
    return res.end('<html><body><h1>' + failure[2] + ' from the bank</h1></body></html>');
  }
  if (failure) {
    return; // the gateway's response_header_timeout ends it
  }
  answer(res, 200, {
    kid: protectedHeader.kid,
    alg: protectedHeader.alg,
    tpp: payload.tpp,
    tppName: payload.tppName,
    roles: payload.roles,
    psuId: payload.psuId,
    psuPresent: payload.psuPresent,
    requestId: payload.requestId,
    path: req.url,
    headers: Object.fromEntries(forwarded.map((h) => [h, req.headers[h] ?? null])),
  });
});

server.listen(Number(env.PORT), '127.0.0.1', () => console.log('listening on ' + env.PORT));
