package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/obgw/obgw/backend/payments"
)

const paymentColumns = `id, tpp, request_id, kind, product, customer_id, debtor_account_id, amount, currency,
	execution_date, body, status, funds_available, created_at, updated_at, instruction`

func scanPayment(row interface{ Scan(...any) error }) (*Payment, error) {
	var p Payment
	err := row.Scan(&p.ID, &p.TPP, &p.RequestID, &p.Kind, &p.Product, optString{&p.CustomerID}, optString{&p.DebtorAccountID},
		&p.Amount, &p.Currency, &p.ExecutionDate, jsonScan{&p.Body}, &p.Status, &p.FundsAvailable,
		instantScan{&p.CreatedAt}, instantScan{&p.UpdatedAt}, instructionScan{&p.Instruction})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// CreatePayment stores p, assigning ID, CreatedAt and UpdatedAt, with its
// Body as compact JSON (compactJSON; p.Body is set to what is stored). A second
// payment with the same (TPP, RequestID) is ErrConflict: the caller answers
// with the first one (GetPaymentByRequest).
func (s *sqlStore) CreatePayment(ctx context.Context, p *Payment) error {
	const op = "create payment"
	if err := oneOf("payment kind", p.Kind, PaymentSingle, PaymentPeriodic, PaymentBulk); err != nil {
		return err
	}
	if err := checkDate("execution date", p.ExecutionDate); err != nil {
		return err
	}
	compact, err := compactJSON("payment body", p.Body)
	if err != nil {
		return err
	}
	body, err := jsonArg("payment body", compact)
	if err != nil {
		return err
	}
	instruction, err := instructionArg(&p.Instruction)
	if err != nil {
		return err
	}
	id, now := newID(), s.stamp()
	if _, err := s.exec(ctx, op, `INSERT INTO payments (`+paymentColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
		id, p.TPP, p.RequestID, p.Kind, p.Product, optRef(p.CustomerID), optRef(p.DebtorAccountID), p.Amount, p.Currency,
		p.ExecutionDate, body, p.Status, p.FundsAvailable, s.d.instant(now), s.d.instant(now), instruction); err != nil {
		return err
	}
	p.ID, p.CreatedAt, p.UpdatedAt, p.Body = id, now, now, compact
	return nil
}

// compactJSON returns j without insignificant whitespace: a payment body
// is kept in this canonical form, so whitespace a client pads its body with
// costs it bytes on the wire but the bank nothing in storage. Members,
// their order and every string (escapes included) are kept as sent, so
// the body reads back, and parses, as the one received.
func compactJSON(what string, j json.RawMessage) (json.RawMessage, error) {
	if len(j) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, j); err != nil {
		return nil, fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, what)
	}
	return b.Bytes(), nil
}

// GetPayment returns a payment by ID.
func (s *sqlStore) GetPayment(ctx context.Context, id string) (*Payment, error) {
	p, err := scanPayment(s.q.QueryRowContext(ctx, `SELECT `+paymentColumns+` FROM payments WHERE id = $1`, id))
	if err != nil {
		return nil, s.fail("get payment", err)
	}
	return p, nil
}

// GetPaymentByRequest returns the payment a TPP created with requestID.
func (s *sqlStore) GetPaymentByRequest(ctx context.Context, tpp, requestID string) (*Payment, error) {
	p, err := scanPayment(s.q.QueryRowContext(ctx, `SELECT `+paymentColumns+` FROM payments WHERE tpp = $1 AND request_id = $2`, tpp, requestID))
	if err != nil {
		return nil, s.fail("get payment by request", err)
	}
	return p, nil
}

// UpdatePayment writes p's status, PSU, debtor account and funds flag if
// the stored status is still from: a compare-and-set, so two concurrent
// transitions cannot both win (ErrConflict for the loser).
func (s *sqlStore) UpdatePayment(ctx context.Context, p *Payment, from string) error {
	const op = "update payment"
	now := s.stamp()
	n, err := s.exec(ctx, op, `UPDATE payments SET status = $3, customer_id = $4, debtor_account_id = $5,
			funds_available = $6, updated_at = $7
		WHERE id = $1 AND status = $2`,
		p.ID, from, p.Status, optRef(p.CustomerID), optRef(p.DebtorAccountID), p.FundsAvailable, s.d.instant(now))
	if err != nil {
		return err
	}
	if n == 0 {
		if _, err := s.GetPayment(ctx, p.ID); err != nil {
			return err
		}
		return s.fail(op, ErrConflict)
	}
	p.UpdatedAt = now
	return nil
}

// ListPaymentsDue returns the single and bulk payments a batch run takes:
// authorised (ACTC), waiting for their date (PDNG) or for funds (ACCP),
// with an execution date on or before date, of TPP tpp (every TPP's when
// tpp is ""), oldest first.
func (s *sqlStore) ListPaymentsDue(ctx context.Context, date, tpp string) ([]Payment, error) {
	const op = "list due payments"
	rows, err := s.q.QueryContext(ctx, `SELECT `+paymentColumns+` FROM payments
		WHERE status IN ('ACTC', 'PDNG', 'ACCP') AND kind <> 'periodic' AND execution_date <= $1
		AND ($2 = '' OR tpp = $2)
		ORDER BY execution_date, created_at, id`, date, tpp)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []Payment
	for rows.Next() {
		p, err := scanPayment(rows)
		if err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, *p)
	}
	return out, s.fail(op, rows.Err())
}

// CreateBasket stores b and its payments atomically, assigning ID and
// CreatedAt; (TPP, RequestID) is unique as for payments.
func (s *sqlStore) CreateBasket(ctx context.Context, b *Basket) error {
	id, now := newID(), s.stamp()
	err := s.inTx(ctx, "create basket", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO baskets (id, tpp, request_id, customer_id, status, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, id, b.TPP, b.RequestID, optRef(b.CustomerID), b.Status, s.d.instant(now)); err != nil {
			return err
		}
		for i, p := range b.PaymentIDs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO basket_payments (basket_id, ord, payment_id) VALUES ($1, $2, $3)`, id, i, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.ID, b.CreatedAt = id, now
	return nil
}

// GetBasket returns a basket by ID.
func (s *sqlStore) GetBasket(ctx context.Context, id string) (*Basket, error) {
	const op = "get basket"
	var b Basket
	err := s.q.QueryRowContext(ctx, `SELECT id, tpp, request_id, customer_id, status, created_at FROM baskets WHERE id = $1`, id).
		Scan(&b.ID, &b.TPP, &b.RequestID, optString{&b.CustomerID}, &b.Status, instantScan{&b.CreatedAt})
	if err != nil {
		return nil, s.fail(op, err)
	}
	rows, err := s.q.QueryContext(ctx, `SELECT payment_id FROM basket_payments WHERE basket_id = $1 ORDER BY ord`, id)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, s.fail(op, err)
		}
		b.PaymentIDs = append(b.PaymentIDs, p)
	}
	return &b, s.fail(op, rows.Err())
}

// GetBasketByRequest returns the basket a TPP created with requestID.
func (s *sqlStore) GetBasketByRequest(ctx context.Context, tpp, requestID string) (*Basket, error) {
	var id string
	err := s.q.QueryRowContext(ctx, `SELECT id FROM baskets WHERE tpp = $1 AND request_id = $2`, tpp, requestID).Scan(&id)
	if err != nil {
		return nil, s.fail("get basket by request", err)
	}
	return s.GetBasket(ctx, id)
}

// UpdateBasket writes b's status and PSU if the stored status is still from.
func (s *sqlStore) UpdateBasket(ctx context.Context, b *Basket, from string) error {
	const op = "update basket"
	n, err := s.exec(ctx, op, `UPDATE baskets SET status = $3, customer_id = $4 WHERE id = $1 AND status = $2`,
		b.ID, from, b.Status, optRef(b.CustomerID))
	if err != nil {
		return err
	}
	if n == 0 {
		if _, err := s.GetBasket(ctx, b.ID); err != nil {
			return err
		}
		return s.fail(op, ErrConflict)
	}
	return nil
}

// instructionArg is the stored form of a payment's instruction: its JSON,
// or "" for none.
func instructionArg(in *payments.Instruction) (string, error) {
	if len(in.Creditor) == 0 {
		return "", nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("%w: the payment's instruction: %v", ErrInvalid, err)
	}
	return string(b), nil
}

// instructionScan reads a stored instruction ("" is none).
type instructionScan struct{ in *payments.Instruction }

// Scan implements sql.Scanner.
func (v instructionScan) Scan(src any) error {
	var b []byte
	switch x := src.(type) {
	case nil:
	case string:
		b = []byte(x)
	case []byte:
		b = x
	default:
		return fmt.Errorf("store: cannot scan %T as a payment instruction", src)
	}
	*v.in = payments.Instruction{}
	if len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, v.in); err != nil {
		return fmt.Errorf("store: a stored payment instruction: %w", err)
	}
	return nil
}
