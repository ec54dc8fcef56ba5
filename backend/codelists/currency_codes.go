package codelists

// allowedCurrencies is the ISOCurrencyCode list of the interface
// description ("Sandbox card transaction"), copied exactly and in its order.
// It is the description's list, not today's ISO 4217: it keeps withdrawn
// codes (BYR, HRK, MRO, STD, VEF, ZWD) and a few that are not ISO 4217 at
// all (GGP, IMP, JEP, SPL, TVD), and lacks their successors (BYN, MRU, STN,
// VES). Every currency of a payment or mock-data body is checked against
// it.
var allowedCurrencies = map[string]struct{}{
	"AED": {}, "AFN": {}, "ALL": {}, "AMD": {}, "ANG": {}, "AOA": {}, "ARS": {}, "AUD": {}, "AWG": {}, "AZN": {},
	"BAM": {}, "BBD": {}, "BDT": {}, "BGN": {}, "BHD": {}, "BIF": {}, "BMD": {}, "BND": {}, "BOB": {}, "BRL": {},
	"BSD": {}, "BTN": {}, "BWP": {}, "BYR": {}, "BZD": {}, "CAD": {}, "CDF": {}, "CHF": {}, "CLP": {}, "CNY": {},
	"COP": {}, "CRC": {}, "CUC": {}, "CUP": {}, "CVE": {}, "CZK": {}, "DJF": {}, "DKK": {}, "DOP": {}, "DZD": {},
	"EGP": {}, "ERN": {}, "ETB": {}, "EUR": {}, "FJD": {}, "FKP": {}, "GBP": {}, "GEL": {}, "GGP": {}, "GHS": {},
	"GIP": {}, "GMD": {}, "GNF": {}, "GTQ": {}, "GYD": {}, "HKD": {}, "HNL": {}, "HRK": {}, "HTG": {}, "HUF": {},
	"IDR": {}, "ILS": {}, "IMP": {}, "INR": {}, "IQD": {}, "IRR": {}, "ISK": {}, "JEP": {}, "JMD": {}, "JOD": {},
	"JPY": {}, "KES": {}, "KGS": {}, "KHR": {}, "KMF": {}, "KPW": {}, "KRW": {}, "KWD": {}, "KYD": {}, "KZT": {},
	"LAK": {}, "LBP": {}, "LKR": {}, "LRD": {}, "LSL": {}, "LYD": {}, "MAD": {}, "MDL": {}, "MGA": {}, "MKD": {},
	"MMK": {}, "MNT": {}, "MOP": {}, "MRO": {}, "MUR": {}, "MVR": {}, "MWK": {}, "MXN": {}, "MYR": {}, "MZN": {},
	"NAD": {}, "NGN": {}, "NIO": {}, "NOK": {}, "NPR": {}, "NZD": {}, "OMR": {}, "PAB": {}, "PEN": {}, "PGK": {},
	"PHP": {}, "PKR": {}, "PLN": {}, "PYG": {}, "QAR": {}, "RON": {}, "RSD": {}, "RUB": {}, "RWF": {}, "SAR": {},
	"SBD": {}, "SCR": {}, "SDG": {}, "SEK": {}, "SGD": {}, "SHP": {}, "SLL": {}, "SOS": {}, "SPL": {}, "SRD": {},
	"STD": {}, "SVC": {}, "SYP": {}, "SZL": {}, "THB": {}, "TJS": {}, "TMT": {}, "TND": {}, "TOP": {}, "TRY": {},
	"TTD": {}, "TVD": {}, "TWD": {}, "TZS": {}, "UAH": {}, "UGX": {}, "USD": {}, "UYU": {}, "UZS": {}, "VEF": {},
	"VND": {}, "VUV": {}, "WST": {}, "XAF": {}, "XCD": {}, "XDR": {}, "XOF": {}, "XPF": {}, "YER": {}, "ZAR": {},
	"ZMW": {}, "ZWD": {},
}

// RuleCurrency is the rule of a FieldError naming a currency that
// ValidCurrency refuses.
const RuleCurrency = "must be an ISO 4217 currency code of the allowed list, in upper case (such as NOK or EUR)"

// ValidCurrency reports whether code is in the description's
// ISOCurrencyCode list: exact, upper case, no trimming.
func ValidCurrency(code string) bool {
	_, ok := allowedCurrencies[code]
	return ok
}
