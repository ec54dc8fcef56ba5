package fixes

// legacyCashAccountType maps an ISO 20022 ExternalCashAccountType1Code to
// the proprietary cashAccountType served before the cash-account-type-iso
// fix, as a JSON string with its quotes, or "" for a code without one (left
// as it is).
//
//	ISO   proprietary
//	CACC  CURRENT
//	CARD  CARD
//	CASH  CASH
//	CHAR  CHARGES
//	COMM  COMMISSION
//	LOAN  LOAN
//	MOMA  MONEY_MARKET
//	ODFT  OVERDRAFT
//	OTHR  OTHER
//	SACC  SETTLEMENT
//	SLRY  SALARY
//	SVGS  SAVINGS
//	TAXE  TAX
//	TRAN  TRANSACTING
//
// Codes compare exactly (ISO codes are upper case); "cacc" stays "cacc".
func legacyCashAccountType(code []byte) string {
	switch string(code) {
	case "CACC":
		return `"CURRENT"`
	case "CARD":
		return `"CARD"`
	case "CASH":
		return `"CASH"`
	case "CHAR":
		return `"CHARGES"`
	case "COMM":
		return `"COMMISSION"`
	case "LOAN":
		return `"LOAN"`
	case "MOMA":
		return `"MONEY_MARKET"`
	case "ODFT":
		return `"OVERDRAFT"`
	case "OTHR":
		return `"OTHER"`
	case "SACC":
		return `"SETTLEMENT"`
	case "SLRY":
		return `"SALARY"`
	case "SVGS":
		return `"SAVINGS"`
	case "TAXE":
		return `"TAX"`
	case "TRAN":
		return `"TRANSACTING"`
	}
	return ""
}
