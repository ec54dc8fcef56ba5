// Package fx is where the bank gets its exchange rates: a Source quotes
// the rate at which it converts one currency into another on a day, as a
// Quote carrying the fields of a Berlin Group v1.3 reportExchangeRate
// (sourceCurrency, exchangeRate, unitCurrency, targetCurrency,
// quotationDate). The backend debits an account in the account's own
// currency: a payment instructed in another currency is converted at a
// Quote (money.Convert: half away from zero to the account currency's
// minor unit), and so is a credit to an own account in another currency.
//
// A production deployment plugs its rate source (the bank's treasury
// system) in as a Source. The sandbox uses Sandbox, a fixed, documented
// table of rates against NOK; None quotes nothing.
package fx
