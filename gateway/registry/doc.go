// Package registry answers whether a TPP, named by the organizationIdentifier
// of its certificate, is authorised by its national competent authority and
// for which roles. A Source is the authoritative register (a local JSON file
// by default, an HTTP service for the national or EBA register); Cache puts
// an LRU with positive and negative TTLs in front of it and serves stale
// entries for a bounded time while the source is down.
package registry
