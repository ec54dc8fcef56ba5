package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// listMembers are the members of a transaction's details that its listing
// shows; every other member is shown only by the transaction's own details
// (the description, release 1.20.1: "A transaction details endpoint is
// added; details leave the lighter transaction list"). The listing keeps
// what identifies a transaction and what a PSU sees on a statement line:
// the counterparty's name, the unstructured remittance text, codes, the
// exchange (release 1.21.21: "currency exchange mapped in card transaction
// list") and the card fields of the description's card transaction, except
// the acceptor's address. Accounts, ultimate parties, creditor and mandate
// identifiers, purpose codes and structured remittance go to the details.
var listMembers = map[string]bool{
	"entryReference":                    true,
	"endToEndIdentification":            true,
	"creditorName":                      true,
	"debtorName":                        true,
	"remittanceInformationUnstructured": true,
	// The same text as an array (Berlin Group v1.3.8 onwards).
	"remittanceInformationUnstructuredArray": true,
	"bankTransactionCode":                    true,
	"proprietaryBankTransactionCode":         true,
	"currencyExchange":                       true,
	"transactionDate":                        true,
	"terminalId":                             true,
	"originalAmount":                         true,
	"markupFee":                              true,
	"markupFeePercentage":                    true,
	"merchantCategoryCode":                   true,
	"cardAcceptorId":                         true,
	"maskedPan":                              true,
	"transactionDetails":                     true,
	"invoiced":                               true,
}

// splitDetails splits a transaction's details object into the members its
// listing shows and the rest, each a JSON object or nil when it would be
// empty. Details that are not an object stay whole in list.
func splitDetails(d json.RawMessage) (list, extra json.RawMessage, err error) {
	d = bytes.TrimSpace(d)
	if len(d) == 0 || d[0] != '{' {
		return d, nil, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(d, &members); err != nil {
		return nil, nil, fmt.Errorf("%w: transaction details: %v", ErrInvalid, err)
	}
	l, x := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, v := range members {
		if listMembers[k] {
			l[k] = v
		} else {
			x[k] = v
		}
	}
	if len(x) == 0 {
		return d, nil, nil
	}
	if extra, err = json.Marshal(x); err != nil {
		return nil, nil, err
	}
	if len(l) > 0 {
		if list, err = json.Marshal(l); err != nil {
			return nil, nil, err
		}
	}
	return list, extra, nil
}

// joinDetails is the whole details object of a transaction stored as list
// and extra by splitDetails.
func joinDetails(list, extra json.RawMessage) json.RawMessage {
	list, extra = bytes.TrimSpace(list), bytes.TrimSpace(extra)
	if len(extra) < 2 || bytes.Equal(extra, []byte("{}")) {
		return list
	}
	if len(list) < 2 || list[0] != '{' || bytes.Equal(list, []byte("{}")) {
		return extra
	}
	out := make([]byte, 0, len(list)+len(extra))
	out = append(out, list[:len(list)-1]...)
	out = append(out, ',')
	return append(out, extra[1:]...)
}

// splitStoredDetails splits the details of every transaction stored before
// details_extra existed, a thousand rows at a time in id order.
func splitStoredDetails(ctx context.Context, tx *sql.Tx) error {
	type row struct {
		id      string
		details json.RawMessage
	}
	after := ""
	for {
		rows, err := tx.QueryContext(ctx, `SELECT id, details FROM transactions
			WHERE id > $1 AND details IS NOT NULL ORDER BY id LIMIT 1000`, after)
		if err != nil {
			return err
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, jsonScan{&r.details}); err != nil {
				rows.Close()
				return err
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		for _, r := range batch {
			list, extra, err := splitDetails(r.details)
			if err != nil {
				return fmt.Errorf("transaction %s: %w", r.id, err)
			}
			if extra == nil {
				continue
			}
			if _, err := tx.ExecContext(ctx, `UPDATE transactions SET details = $1, details_extra = $2 WHERE id = $3`,
				textArg(list), textArg(extra), r.id); err != nil {
				return err
			}
		}
		after = batch[len(batch)-1].id
	}
}
