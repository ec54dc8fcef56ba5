// Package money formats and parses amounts held as integer minor units with
// an ISO 4217 currency: "2.00" NOK, "150" JPY, "1.500" BHD. No floats.
// Convert converts between currencies at a decimal rate, exactly, rounding
// half away from zero to the target currency's minor unit.
package money
