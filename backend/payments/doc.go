// Package payments parses and validates the payment initiation bodies of
// the Berlin Group NextGenPSD2 v1.3 dialect of Norwegian banks: single
// payments (ParsePayment, also the body of the instant product's
// fee-information), periodic payments (ParsePeriodic) and bulk payments
// (ParseBulk), for the four products of contract section 7 (KnownProduct).
// It knows no HTTP and no store: each ParseX takes the product of the
// path, the body and the bank's date (Today), and returns either a
// validated value, with amounts in minor units, or every rule broken (at
// most MaxFieldErrors) as FieldErrors naming JSON paths, which the caller
// answers with 400 FORMAT_ERROR. Fee is the sandbox tariff of the instant
// product, ValidKID the Norwegian payment reference check.
//
// Bodies are decoded and walked with backend/strictjson, shared with
// backend/sandbox/mockdata, rather than encoding/json: the rules need exact
// JSON types (an amount sent as a number is refused, not converted), every
// member in body order with duplicates (duplicates are refused; of two
// exclusive fields the second is named), and a path for syntax and
// character errors. Characters are refused while decoding
// (strictjson.RefuseCharacters). Currencies and countries are those of
// backend/codelists, dates checked with backend/civildate.
//
// A body too large, not JSON, past a decoder bound or holding a refused
// character gets that one FieldError; otherwise every rule is checked, and
// a rule relating two fields only when both passed their own checks, so
// that one mistake gives one error.
//
// Decisions the description and the contract leave open, fixed here:
//   - Unknown members are refused, naming the member and the field it was
//     probably meant to be (another case, one or two typos away); Berlin
//     Group fields this bank does not take (ultimateCreditor, purposeCode,
//     pan...) and fields of another kind of payment (requestedExecutionDate
//     in a periodic payment, debtorAccount inside a bulk's payments) say
//     so. null counts as absent, and so does an empty optional string.
//   - Characters (contract section 1), anywhere in a body, member names
//     included: invalid UTF-8, lone surrogate escapes, C0/C1 controls and
//     DEL (escaped ones too: no field is multi-line), bidi controls,
//     U+FFFE/U+FFFF and characters outside the BMP (emoji) are refused at
//     the path of the string. Bounds: MaxBodyBytes (MaxBulkBodyBytes for
//     a bulk), nesting 32 deep, 100 members per object, 65536 values,
//     number literals of 32 characters, strings of 4096 bytes (jsonscan's
//     bounds, the gateway's too). Lengths count characters: names
//     and street 70, remittance 140, identifiers and references 35, town
//     35, building number and post code 16.
//   - instructedAmount.amount is a JSON string only ("123.45"), as Berlin
//     Group types it; a JSON number is refused with a hint, since reading
//     one as a float could change the amount. It must be positive, have
//     at most the currency's decimals (money.Exponent: "150" JPY, "1.500"
//     BHD) and at most 12 digits before the point. Currencies are checked
//     against the description's ISO 4217 list; the domestic products take
//     NOK only, sepa-credit-transfers EUR only, cross-border any.
//   - Accounts: iban (check digits; a Norwegian IBAN also the MOD11 of its
//     BBAN) or bban (Norwegian, MOD11), both only when they name the same
//     Norwegian account. The debtor account is at this bank, so it is
//     Norwegian for every product. The creditor is Norwegian for the
//     domestic products; sepa-credit-transfers takes IBANs only, on both
//     sides (any country for the creditor); cross-border takes a creditor
//     IBAN, or a foreign bban (1 to 30 letters and digits) with
//     creditorAgent. Debtor and creditor must be different accounts.
//   - creditorAgent is a BIC of 8 or 11 upper-case characters whose
//     country is in the description's list. creditorName is required;
//     creditorAddress (country required within it) is required for
//     cross-border-credit-transfers.
//   - Remittance: at most one of remittanceInformationUnstructured,
//     remittanceInformationStructured and
//     remittanceInformationStructuredArray (1 to MaxStructuredRemittances
//     references); each one after the first in the body is refused. A
//     structured reference of type SCOR or KID (any case, returned upper
//     case) must be a valid KID (ValidKID). For the domestic products every
//     structured reference is a KID: no type means KID, another type is
//     refused. For SEPA and cross-border a SCOR reference may instead be an
//     ISO 11649 RF creditor reference, and other types are free text.
//   - Dates are ISO dates (YYYY-MM-DD; Berlin Group's ISODate, so no
//     date-time). requestedExecutionDate and startDate lie from today to
//     one year ahead; endDate is not before startDate.
//   - endToEndIdentification is at most 35 printable ASCII characters: it
//     travels through clearing systems with small character sets.
//   - Periodic: startDate and frequency (a Berlin Group code, exact case)
//     required; executionRule following or preceding; dayOfExecution "1"
//     to "31"; monthsOfExecution "1" to "12" (strings without leading
//     zero, 1 to MaxMonthsOfExecution distinct months: duplicates are
//     refused, release 1.18.1; all 12 months are refused with a text
//     naming frequency Monthly, which says that, rather than read as it)
//     is required with, and only allowed with, frequency MonthlyVariable. Any product may be periodic or bulk.
//   - Bulk: 1 to MaxBulkPayments payments at $.payments[i], sharing the
//     bulk's debtorAccount and requestedExecutionDate (which the payments
//     may not repeat) and one currency, so that the bulk's sum is an
//     amount; batchBookingPreferred is a JSON boolean.
//   - Fee: the instant product costs NOK 1.00 below NOK 100 000 and NOK
//     5.00 from NOK 100 000.00; the other products cost nothing.
//   - The product must be known (the caller answers 404 PRODUCT_UNKNOWN
//     first); today must be a date, or ParseX panics, since that is a
//     programming error rather than a fault of the request.
package payments
