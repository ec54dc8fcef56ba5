// Package money formats and parses amounts held as integer minor units with
// an ISO 4217 currency: "2.00" NOK, "150" JPY, "1.500" BHD. No floats.
package money
