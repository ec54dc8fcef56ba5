// Package sca is the PSU's side of strong customer authentication: the
// SCA flows a TPP's request starts (stored, or sealed into the link of a
// request without consent), the PSU's pages that identify the PSU (at the
// bank's OpenID Connect provider, or by the sandbox's customer number),
// bind the flow to the PSU's browser and end it with one outcome, the
// funnel of those steps, and the PSU's page of consents.
//
// What a flow authorises belongs to the concern that started it: a
// consent's to Consents (backend/ais), payments' to Payments
// (backend/pis). The concerns start and read flows through the Service's
// methods in flows.go (Start, Required, New and Started, Href, Withdraw
// and Withdrawn), which satisfy their Flows. The backend wires them.
package sca
