package codelists

import (
	"strings"
	"testing"
)

// The allowed values as the interface description writes them
// ("Sandbox card transaction"), pasted from it.
const (
	descriptionCurrencies = "AED, AFN, ALL, AMD, ANG, AOA, ARS, AUD, AWG, AZN, BAM, BBD, BDT, BGN, BHD, BIF, BMD, BND, BOB, " +
		"BRL, BSD, BTN, BWP, BYR, BZD, CAD, CDF, CHF, CLP, CNY, COP, CRC, CUC, CUP, CVE, CZK, DJF, DKK, " +
		"DOP, DZD, EGP, ERN, ETB, EUR, FJD, FKP, GBP, GEL, GGP, GHS, GIP, GMD, GNF, GTQ, GYD, HKD, HNL, " +
		"HRK, HTG, HUF, IDR, ILS, IMP, INR, IQD, IRR, ISK, JEP, JMD, JOD, JPY, KES, KGS, KHR, KMF, KPW, " +
		"KRW, KWD, KYD, KZT, LAK, LBP, LKR, LRD, LSL, LYD, MAD, MDL, MGA, MKD, MMK, MNT, MOP, MRO, MUR, " +
		"MVR, MWK, MXN, MYR, MZN, NAD, NGN, NIO, NOK, NPR, NZD, OMR, PAB, PEN, PGK, PHP, PKR, PLN, PYG, " +
		"QAR, RON, RSD, RUB, RWF, SAR, SBD, SCR, SDG, SEK, SGD, SHP, SLL, SOS, SPL, SRD, STD, SVC, SYP, " +
		"SZL, THB, TJS, TMT, TND, TOP, TRY, TTD, TVD, TWD, TZS, UAH, UGX, USD, UYU, UZS, VEF, VND, VUV, " +
		"WST, XAF, XCD, XDR, XOF, XPF, YER, ZAR, ZMW, ZWD"
	descriptionCountries = "AF, AX, AL, DZ, AS, AD, AO, AI, AQ, AG, AR, AM, AW, AU, AT, AZ, BH, BS, BD, BB, BY, BE, BZ, BJ, " +
		"BM, BT, BO, BQ, BA, BW, BV, BR, IO, BN, BG, BF, BI, KH, CM, CA, CV, KY, CF, TD, CL, CN, CX, CC, " +
		"CO, KM, CG, CD, CK, CR, CI, HR, CU, CW, CY, CZ, DK, DJ, DM, DO, EC, EG, SV, GQ, ER, EE, ET, FK, " +
		"FO, FJ, FI, FR, GF, PF, TF, GA, GM, GE, DE, GH, GI, GR, GL, GD, GP, GU, GT, GG, GN, GW, GY, HT, " +
		"HM, VA, HN, HK, HU, IS, IN, ID, IR, IQ, IE, IM, IL, IT, JM, JP, JE, JO, KZ, KE, KI, KP, KR, KW, " +
		"KG, LA, LV, LB, LS, LR, LY, LI, LT, LU, MO, MK, MG, MW, MY, MV, ML, MT, MH, MQ, MR, MU, YT, MX, " +
		"FM, MD, MC, MN, ME, MS, MA, MZ, MM, NA, NR, NP, NL, NC, NZ, NI, NE, NG, NU, NF, MP, NO, OM, PK, " +
		"PW, PS, PA, PG, PY, PE, PH, PN, PL, PT, PR, QA, RE, RO, RU, RW, BL, SH, KN, LC, MF, PM, VC, WS, " +
		"SM, ST, SA, SN, RS, SC, SL, SG, SX, SK, SI, SB, SO, ZA, GS, SS, ES, LK, SD, SR, SJ, SZ, SE, CH, " +
		"SY, TW, TJ, TZ, TH, TL, TG, TK, TO, TT, TN, TR, TM, TC, TV, UG, UA, AE, GB, US, UM, UY, UZ, VU, " +
		"VE, VN, VG, VI, WF, EH, YE, ZM, ZW"
)

func TestCodeSetsMatchDescription(t *testing.T) {
	tests := []struct {
		name string
		text string
		set  map[string]struct{}
		size int
	}{
		{"currencies", descriptionCurrencies, allowedCurrencies, 162},
		{"countries", descriptionCountries, allowedCountries, 249},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			codes := strings.Split(tc.text, ", ")
			if len(codes) != tc.size || len(tc.set) != tc.size {
				t.Fatalf("description lists %d, set holds %d, want %d", len(codes), len(tc.set), tc.size)
			}
			for _, c := range codes {
				if _, ok := tc.set[c]; !ok {
					t.Errorf("%s is in the description but not in the set", c)
				}
			}
		})
	}
}

func TestValidCurrencyAndCountry(t *testing.T) {
	tests := []struct {
		code string
		fn   func(string) bool
		want bool
	}{
		{"NOK", ValidCurrency, true},
		{"EUR", ValidCurrency, true},
		{"ZWD", ValidCurrency, true},
		{"nok", ValidCurrency, false},
		{"NOK ", ValidCurrency, false},
		{"VES", ValidCurrency, false},
		{"", ValidCurrency, false},
		{"NO", ValidCountry, true},
		{"AX", ValidCountry, true},
		{"ZW", ValidCountry, true},
		{"no", ValidCountry, false},
		{"No", ValidCountry, false},
		{"EU", ValidCountry, false},
		{"N", ValidCountry, false},
	}
	for _, tc := range tests {
		if got := tc.fn(tc.code); got != tc.want {
			t.Errorf("%q: got %v, want %v", tc.code, got, tc.want)
		}
	}
}
