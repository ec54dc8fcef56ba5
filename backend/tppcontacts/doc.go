// Package tppcontacts is the backend's concern of TPP contact
// registration (/v1/tpp-contacts): group mailboxes that receive the
// bank's operational notices, such as major downtime. It parses and
// validates what a TPP sends (ParseRegistration, which knows no HTTP and
// no store), serves the three routes (API, over the three store
// operations it uses: Store) and exports the list for the bank. It
// imports neither package backend nor another concern (layering).
//
// The interface description shows no payload, so the shape follows Berlin
// Group style and is kept small and strict:
//
//	{"tppId": "PSDNO-FSA-987654321", "emailAddresses": ["drift@tpp.example"]}
//
// Decisions the description and the contract leave open, fixed here:
//   - tppId is optional: the TPP is the one whose QSealC the gateway
//     verified. When sent (in the body, or as the tppId query parameter of
//     GET and DELETE) it must name that TPP, with or without the PSD prefix
//     (NO-FSA-987654321 is PSDNO-FSA-987654321; API release 1.21.6). MatchTPPID
//     tells the caller whether a tppId names the verified TPP, another TPP
//     (the caller refuses it: a TPP manages only its own contacts) or is
//     no organizationIdentifier at all.
//   - emailAddresses holds 1 to MaxAddresses addresses and replaces the
//     TPP's list. Each is a plain RFC 5322 addr-spec as net/mail parses it
//     (no display name, angle brackets, comments or quoted local part), in
//     ASCII (an internationalised domain in its xn-- form), at most
//     MaxAddressBytes long with a local part of at most 64, and a domain
//     name of at least two labels (no IP address literal). Two addresses
//     are the same when their local parts are equal and their domains equal
//     in any case; a repeated one is refused, naming the index it repeats.
//     Addresses are kept as sent.
//   - The body is decoded with backend/strictjson (as the payment and
//     mock-data bodies are): unknown and duplicate members are refused,
//     null counts as absent, characters that contract section 1 refuses
//     fail the decoding, and every problem is a FieldError naming its JSON
//     path. No rule text quotes an address: they are personal data when a
//     TPP ignores the advice to register group mailboxes, and error texts
//     end up in logs.
package tppcontacts
