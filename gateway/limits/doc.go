// Package limits enforces the PSU-not-present call limit of the interface
// description: at most Limit (4) calls in any rolling Window (24 h) per
// (TPP, PSU-ID, resource id, kind).
//
// The window is exact and sliding: a call is allowed iff fewer than Limit
// calls were allowed in the Window before it. Refused calls are not
// recorded, so a TPP that keeps retrying does not push its next allowed call
// further away; nor are calls the gateway let through but that were not
// served (the backend refused them): the caller releases their
// reservation (Release) once it knows. A refusal carries the time until the oldest counted call
// leaves the window, rounded up to whole seconds, for Retry-After.
//
// Memory serves a single gateway. Redis shares one limit between several
// gateways with one atomic Lua script per call. Both take the caller's
// clock ("now") rather than Redis's, so tests can pin time; gateways that
// share a Redis therefore need synchronised clocks, which they already need
// for the Date check (60 s by default).
//
// Keys are kept for a whole window, so the parts a client chooses are
// checked before anything is counted (CheckKeyParts): the resource id is at
// most 128 bytes of A-Z a-z 0-9 ! _ = . - (the backend's ids are "enc!!"
// and URL-safe base64), and the PSU-ID a UUID. A client that sends anything
// else is refused and leaves no key behind.
package limits
