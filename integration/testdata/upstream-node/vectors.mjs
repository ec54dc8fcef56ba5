// A context-token verifier written from docs/context-token.md alone, in
// Node with the jose package, checked against the language-neutral test
// vectors (docs/context-token-vectors.json, the path in argv[2]): for
// each case it prints "ok <name>" when its verdict is the vector's, else
// "MISMATCH <name>: ...", and exits 1 on any mismatch.
import fs from 'node:fs';
import { createLocalJWKSet, jwtVerify } from 'jose';

const vectors = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const jwks = createLocalJWKSet(vectors.jwks);
const skew = 5; // seconds, either way

// verify reaches the document's verdict on one request: true to accept.
async function verify(c) {
  let payload;
  try {
    // The algorithm must be the key's (its JWK's alg), never none or a
    // symmetric one; exp with the skew; the audience ours.
    const keyAlg = (protectedHeader) => vectors.jwks.keys.find((k) => k.kid === protectedHeader.kid)?.alg;
    const result = await jwtVerify(c.token, async (protectedHeader, token) => {
      if (keyAlg(protectedHeader) !== protectedHeader.alg) {
        throw new Error('the algorithm is not the key\'s');
      }
      return jwks(protectedHeader, token);
    }, {
      algorithms: ['EdDSA', 'ES256'],
      audience: vectors.audience,
      clockTolerance: skew,
      currentDate: new Date(c.now * 1000),
      requiredClaims: ['ver', 'tpp', 'requestId', 'iat', 'exp'],
    });
    payload = result.payload;
  } catch {
    return false;
  }
  // A version we know; not issued in the future.
  if (payload.ver !== 1 || payload.iat > c.now + skew) {
    return false;
  }
  // For this request: the method, the path percent-decoded, the
  // X-Request-ID; and the role the operation needs.
  if (payload.method !== c.method || payload.path !== decodeURIComponent(c.path) || payload.requestId !== c.requestId) {
    return false;
  }
  return c.role === '' || (Array.isArray(payload.roles) && payload.roles.includes(c.role));
}

let mismatches = 0;
for (const c of vectors.cases) {
  const got = await verify(c);
  if (got === c.valid) {
    console.log('ok ' + c.name);
  } else {
    mismatches++;
    console.log('MISMATCH ' + c.name + ': verdict ' + got + ', the vector says ' + c.valid);
  }
}
process.exit(mismatches === 0 ? 0 : 1);
