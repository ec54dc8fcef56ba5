// A bank backend that is not Go, behind obgw (OBGW_BACKEND=upstream): it
// trusts a request only with a valid X-Obgw-Context token, verified with
// the gateway's public keys (JWKS), as docs/context-token.md says a
// backend must, and answers the identity it saw. Mutual TLS: only clients
// whose certificate chains to CLIENT_CA (the gateway's) get in.
//
// Environment: PORT, JWKS_URL, AUDIENCE, TLS_CERT, TLS_KEY, CLIENT_CA,
// PATH_PREFIX (what the gateway puts in front of the path).
import fs from 'node:fs';
import https from 'node:https';
import { createRemoteJWKSet, jwtVerify } from 'jose';

const env = process.env;
// A token whose kid the cached set lacks makes jose fetch the set again
// (a rotation published a new key); cooldownDuration bounds how often.
const jwks = createRemoteJWKSet(new URL(env.JWKS_URL), { cooldownDuration: 0, cacheMaxAge: 300_000 });

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
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
    return answer(res, 401, { error: e.code || String(e) });
  }
  const { payload, protectedHeader } = verified;
  // What a backend must refuse besides: a version it does not know, a
  // token taken from another request.
  const path = req.url.split('?')[0];
  if (payload.ver !== 1) {
    return answer(res, 401, { error: 'unknown token version ' + payload.ver });
  }
  if (payload.method !== req.method || (env.PATH_PREFIX || '') + payload.path !== path ||
      payload.requestId !== req.headers['x-request-id']) {
    return answer(res, 401, { error: 'the token is for another request' });
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
  });
});

server.listen(Number(env.PORT), '127.0.0.1', () => console.log('listening on ' + env.PORT));
