package mockdata

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/obgw/obgw/backend/money"
)

// cardTransactionsResponse is the "Sandbox card transaction creation
// response" of the interface description.
type cardTransactionsResponse struct {
	CardAccount      responseCardAccount      `json:"cardAccount"`
	CardTransactions responseCardTransactions `json:"cardTransactions"`
}

type responseCardAccount struct {
	MaskedPan string `json:"maskedPan"`
}

type responseCardTransactions struct {
	Booked  []bookedCardTransaction `json:"booked"`
	Pending []string                `json:"pending"`
}

type bookedCardTransaction struct {
	CardTransactionID    string         `json:"cardTransactionId"`
	BookingDate          string         `json:"bookingDate"`
	TransactionDate      string         `json:"transactionDate"`
	TransactionAmount    responseAmount `json:"transactionAmount"`
	OriginalAmount       responseAmount `json:"originalAmount"`
	MerchantCategoryCode string         `json:"merchantCategoryCode"`
}

// responseAmount is typed int32 whole units in the description, so it is
// a JSON number, as the request's, not the amount-as-string of the
// account information responses.
type responseAmount struct {
	Currency string `json:"currency"`
	Amount   int32  `json:"amount"`
}

// CardTransactionsResponse builds the body of the creation response:
// {"cardAccount":{"maskedPan":...},"cardTransactions":{"booked":[...],
// "pending":[]}}, each booked item with cardTransactionId, bookingDate,
// transactionDate, transactionAmount and originalAmount ({currency, amount}
// with amount in whole units, int32) and merchantCategoryCode. Every
// created transaction is booked, since each has a booking date. It fails
// when an amount is not a whole number of currency units or is outside
// int32, which cannot happen for transactions from ParseCardTransactions.
func CardTransactionsResponse(maskedPan string, txs []CardTransaction) ([]byte, error) {
	if maskedPan == "" {
		return nil, errors.New("mockdata: card transactions response without a maskedPan")
	}
	r := cardTransactionsResponse{
		CardAccount: responseCardAccount{MaskedPan: maskedPan},
		CardTransactions: responseCardTransactions{
			Booked:  make([]bookedCardTransaction, len(txs)),
			Pending: []string{},
		},
	}
	for i := range txs {
		tx := &txs[i]
		ta, err := wholeAmount(tx.TransactionAmount)
		if err != nil {
			return nil, fmt.Errorf("mockdata: card transaction %d transactionAmount: %w", i, err)
		}
		oa, err := wholeAmount(tx.OriginalAmount)
		if err != nil {
			return nil, fmt.Errorf("mockdata: card transaction %d originalAmount: %w", i, err)
		}
		r.CardTransactions.Booked[i] = bookedCardTransaction{
			CardTransactionID:    tx.CardTransactionID,
			BookingDate:          tx.BookingDate,
			TransactionDate:      tx.TransactionDate,
			TransactionAmount:    ta,
			OriginalAmount:       oa,
			MerchantCategoryCode: tx.MerchantCategoryCode,
		}
	}
	return json.Marshal(r)
}

// wholeAmount converts minor units back to the int32 whole units of the
// description.
func wholeAmount(m Money) (responseAmount, error) {
	unit := int64(1)
	for i := 0; i < money.Exponent(m.Currency); i++ {
		unit *= 10
	}
	if m.Minor%unit != 0 {
		return responseAmount{}, fmt.Errorf("%s %s is not a whole number of units", money.Format(m.Minor, m.Currency), m.Currency)
	}
	w := m.Minor / unit
	if w < math.MinInt32 || w > math.MaxInt32 {
		return responseAmount{}, fmt.Errorf("%s %s is outside int32", money.Format(m.Minor, m.Currency), m.Currency)
	}
	return responseAmount{Currency: m.Currency, Amount: int32(w)}, nil
}
