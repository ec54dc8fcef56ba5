// Package pis is payment initiation: single, periodic and bulk payments
// (their initiation, status, cancellation and authorisations), signing
// baskets, the fee of an instant payment, who the PSU of a PISP is (GET
// /v1/user), the payments' execution (at once for an instant payment,
// else by the batch runs) and the sandbox's hold, release and stop of a
// payment.
//
// It knows the SCA it needs only as Flows, and the store as the Store of
// the operations it uses; the backend wires both. What a payment's SCA
// flow authorises when it completes (authoriseFlow, cancelFlow) or fails
// (Reject) the SCA pages ask of it.
package pis
