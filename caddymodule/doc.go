// Package caddymodule holds obgw's Caddy adapters:
//
//   - obgw, the app (global option) that owns what every handler of a
//     configuration shares: trusted QTSP CAs, the certificate and register
//     caches, the replay store, the context-token key;
//   - obgw_verify, the handler that runs the TPP verification pipeline in
//     front of a route;
//   - obgw_fixes, the handler that applies the x-accept-fix behaviours in
//     effect to the backend's responses;
//   - obgw_backend, the handler that serves the backend (accounts,
//     consents, payments, SCA) over a store shared across reloads;
//   - obgw_ready, the unsigned readiness handler (/readyz);
//   - obgw_error, the handler that answers with Berlin Group error bodies.
//
// The logic lives in plain packages under gateway/ and backend/; these
// files only configure and call it.
package caddymodule
