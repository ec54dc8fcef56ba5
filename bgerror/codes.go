package bgerror

import (
	"maps"
	"net/http"
	"slices"
)

// Berlin Group error codes used by obgw (contract section 2).
const (
	CodeFormatError         = "FORMAT_ERROR"
	CodeSignatureMissing    = "SIGNATURE_MISSING"
	CodeSignatureInvalid    = "SIGNATURE_INVALID"
	CodeTimestampInvalid    = "TIMESTAMP_INVALID"
	CodeCorporateIDInvalid  = "CORPORATE_ID_INVALID"
	CodeCertificateMissing  = "CERTIFICATE_MISSING"
	CodeCertificateInvalid  = "CERTIFICATE_INVALID"
	CodeCertificateExpired  = "CERTIFICATE_EXPIRED"
	CodeCertificateRevoked  = "CERTIFICATE_REVOKED"
	CodeCertificateBlocked  = "CERTIFICATE_BLOCKED"
	CodeRoleInvalid         = "ROLE_INVALID"
	CodeConsentInvalid      = "CONSENT_INVALID"
	CodeConsentExpired      = "CONSENT_EXPIRED"
	CodeResourceUnknown     = "RESOURCE_UNKNOWN"
	CodeProductUnknown      = "PRODUCT_UNKNOWN"
	CodeServiceInvalid      = "SERVICE_INVALID"
	CodeReferenceMixInvalid = "REFERENCE_MIX_INVALID"
	CodeStatusInvalid       = "STATUS_INVALID"
	CodeReferenceStatus     = "REFERENCE_STATUS_INVALID"
	CodeAccessExceeded      = "ACCESS_EXCEEDED"
	CodeServiceUnavailable  = "SERVICE_UNAVAILABLE"
	CodeRequestedFormats    = "REQUESTED_FORMATS_INVALID"
	// CodePaymentFailed: the bank could not execute an authorised payment
	// (an instant payment without funds); Berlin Group v1.3.
	CodePaymentFailed = "PAYMENT_FAILED"
)

// defaultStatus is the HTTP status of each code where the contract gives
// exactly one. Codes with more than one status (RESOURCE_UNKNOWN: 403 or 404)
// are built with NewStatus.
var defaultStatus = map[string]int{
	CodeFormatError:         http.StatusBadRequest,
	CodeSignatureMissing:    http.StatusBadRequest,
	CodeSignatureInvalid:    http.StatusBadRequest,
	CodeTimestampInvalid:    http.StatusBadRequest,
	CodeCorporateIDInvalid:  http.StatusBadRequest,
	CodeCertificateMissing:  http.StatusBadRequest,
	CodeCertificateInvalid:  http.StatusUnauthorized,
	CodeCertificateExpired:  http.StatusUnauthorized,
	CodeCertificateRevoked:  http.StatusUnauthorized,
	CodeCertificateBlocked:  http.StatusUnauthorized,
	CodeRoleInvalid:         http.StatusUnauthorized,
	CodeConsentInvalid:      http.StatusUnauthorized,
	CodeConsentExpired:      http.StatusUnauthorized,
	CodeResourceUnknown:     http.StatusNotFound,
	CodeProductUnknown:      http.StatusNotFound,
	CodeServiceInvalid:      http.StatusMethodNotAllowed,
	CodeReferenceMixInvalid: http.StatusBadRequest,
	CodeStatusInvalid:       http.StatusConflict,
	CodeReferenceStatus:     http.StatusConflict,
	CodeAccessExceeded:      http.StatusTooManyRequests,
	CodeServiceUnavailable:  http.StatusServiceUnavailable,
	CodeRequestedFormats:    http.StatusNotAcceptable,
	CodePaymentFailed:       http.StatusBadRequest,
}

// Codes returns every code the contract gives a status, sorted.
func Codes() []string {
	return slices.Sorted(maps.Keys(defaultStatus))
}

// StatusOf returns the HTTP status the contract gives code, or 400 for a
// code it does not know.
func StatusOf(code string) int {
	if s, ok := defaultStatus[code]; ok {
		return s
	}
	return http.StatusBadRequest
}
