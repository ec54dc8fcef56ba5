package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// AddTransactions stores all of txs atomically (all or none), assigning IDs
// and, where zero, CreatedAt: the batch's time plus i microseconds for
// txs[i], so a batch lists as if its elements had been added one by one
// (later ones newer) and paging is stable. A CreatedAt already set is kept,
// so seed data can place transactions in time. On success each element's
// ID, AccountID and CreatedAt are filled in; on failure txs is unchanged.
// An unknown account is ErrNotFound.
func (s *sqlStore) AddTransactions(ctx context.Context, accountID string, txs []Transaction) error {
	const op = "add transactions"
	now := s.stamp()
	ids := make([]string, len(txs))
	created := make([]time.Time, len(txs))
	err := s.inTx(ctx, op, func(tx *sql.Tx) error {
		ok, err := accountExists(ctx, tx, accountID)
		if err != nil {
			return err
		}
		if !ok {
			return sql.ErrNoRows
		}
		if len(txs) == 0 {
			return nil
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO transactions
			(id, account_id, booked, amount, currency, booking_date, value_date, details, details_extra, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := range txs {
			t := &txs[i]
			if err := checkDate("transaction booking date", t.BookingDate); err != nil {
				return fmt.Errorf("transaction %d: %w", i, err)
			}
			if err := checkDate("transaction value date", t.ValueDate); err != nil {
				return fmt.Errorf("transaction %d: %w", i, err)
			}
			if _, err := jsonArg("transaction details", t.Details); err != nil {
				return fmt.Errorf("transaction %d: %w", i, err)
			}
			list, extra, err := splitDetails(t.Details)
			if err != nil {
				return fmt.Errorf("transaction %d: %w", i, err)
			}
			ids[i], created[i] = newID(), utc(t.CreatedAt)
			if created[i].IsZero() {
				created[i] = now.Add(time.Duration(i) * time.Microsecond)
			}
			if _, err := stmt.ExecContext(ctx, ids[i], accountID, t.Booked, t.Amount, t.Currency,
				t.BookingDate, t.ValueDate, textArg(list), textArg(extra), s.d.instant(created[i])); err != nil {
				return err
			}
		}
		perDay := map[string]int64{}
		for i := range txs {
			if txs[i].Booked {
				perDay[txs[i].BookingDate]++
			}
		}
		var booked int64
		for day, n := range perDay {
			if _, err := tx.ExecContext(ctx, addDayCount, accountID, day, n); err != nil {
				return err
			}
			booked += n
		}
		if booked > 0 {
			if _, err := tx.ExecContext(ctx, addBookedCount, accountID, booked); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := range txs {
		txs[i].ID, txs[i].AccountID, txs[i].CreatedAt = ids[i], accountID, created[i]
	}
	return nil
}

// The listing queries. One statement text serves every filter and stays in
// the prepared-statement caches: the booked listings take both date
// bounds always, an open one given as the lowest or highest date
// (dateBounds), so that the bounds are a range of the index
// transactions_list in any plan, PostgreSQL's generic plans included
// (Open has PostgreSQL plan every statement once, not per execution). The
// LIMIT is an expression, not a bare parameter: SQLite (3.53) reads a bare
// LIMIT parameter's value when it plans, and so prepares the statement
// again at every execution (BenchmarkLimitParameter).
const (
	// listBooked pages the booked transactions, each row with the
	// account's total (countAllBooked's), so a page without date bounds
	// needs no second statement for it.
	listBooked = `SELECT id, amount, currency, booking_date, NULLIF(value_date, booking_date), details,
			(SELECT booked_count FROM accounts WHERE id = $1)
		FROM transactions
		WHERE account_id = $1 AND booked = TRUE
			AND booking_date >= $2 AND booking_date <= $3
		ORDER BY booking_date DESC, created_at DESC, id
		LIMIT ($4 + 0) OFFSET $5`
	// countBooked counts the booked transactions before paging, from the
	// per-day counts AddTransactions keeps. (Counting the transactions
	// themselves costs a scan of every match: 15 ms for 100,000.)
	countBooked = `SELECT COALESCE(SUM(booked), 0) FROM transaction_day_counts
		WHERE account_id = $1 AND booking_date >= $2 AND booking_date <= $3`
	// countAllBooked counts an account's booked transactions when no
	// dates bound them: the total AddTransactions keeps on the account.
	countAllBooked = `SELECT booked_count FROM accounts WHERE id = $1`
	// addBookedCount adds to an account's total.
	addBookedCount = `UPDATE accounts SET booked_count = booked_count + $2 WHERE id = $1`
	// addDayCount adds to one day's booked count.
	addDayCount = `INSERT INTO transaction_day_counts (account_id, booking_date, booked)
		VALUES ($1, $2, $3)
		ON CONFLICT (account_id, booking_date) DO UPDATE
		SET booked = transaction_day_counts.booked + excluded.booked`
	// listPending returns every pending transaction.
	listPending = `SELECT id, amount, currency, booking_date, NULLIF(value_date, booking_date), details
		FROM transactions
		WHERE account_id = $1 AND booked = FALSE
		ORDER BY booking_date DESC, created_at DESC, id`
	// listPendingFiltered pages the pending transactions by date, as
	// listBooked does the booked ones. A pending item's date is its
	// booking date, else its value date; one with neither is current and
	// passes any date bounds.
	listPendingFiltered = `SELECT id, amount, currency, booking_date, NULLIF(value_date, booking_date), details
		FROM transactions
		WHERE account_id = $1 AND booked = FALSE
			AND ($2 = '' OR COALESCE(NULLIF(booking_date, ''), value_date) = '' OR COALESCE(NULLIF(booking_date, ''), value_date) >= $2)
			AND ($3 = '' OR COALESCE(NULLIF(booking_date, ''), value_date) = '' OR COALESCE(NULLIF(booking_date, ''), value_date) <= $3)
		ORDER BY booking_date DESC, created_at DESC, id
		LIMIT ($4 + 0) OFFSET $5`
)

// ListTransactions returns an account's transactions matching f: booked
// ones (when f.Booked) by booking date newest first, then creation newest
// first, then id; then the pending ones (when f.Pending) in the same order:
// every one, unless f.PendingFiltered dates and pages them as well. bookedTotal is the number of booked
// transactions matching the dates before paging (0 when !f.Booked). An
// unknown account is ErrNotFound.
func (s *sqlStore) ListTransactions(ctx context.Context, accountID string, f TransactionFilter) (txs []Transaction, bookedTotal int, err error) {
	const op = "list transactions"
	if err := checkDate("dateFrom", f.DateFrom); err != nil {
		return nil, 0, err
	}
	if err := checkDate("dateTo", f.DateTo); err != nil {
		return nil, 0, err
	}
	if f.Limit < 0 || f.Offset < 0 {
		return nil, 0, fmt.Errorf("%w: negative limit or offset", ErrInvalid)
	}
	if f.Booked {
		limit := s.d.noLimit
		if f.Limit > 0 {
			limit = int64(f.Limit)
			txs = make([]Transaction, 0, min(f.Limit, 1000))
		}
		from, to := dateBounds(f.DateFrom, f.DateTo)
		rows, err := s.q.QueryContext(ctx, listBooked, accountID, from, to, limit, int64(f.Offset))
		if err != nil {
			return nil, 0, s.fail(op, err)
		}
		var all int64
		if txs, err = scanTransactions(rows, accountID, true, txs, &all); err != nil {
			return nil, 0, s.fail(op, err)
		}
		bookedTotal = f.Offset + len(txs)
		full := f.Limit > 0 && len(txs) == f.Limit
		if full && f.DateFrom == "" && f.DateTo == "" {
			bookedTotal = int(all)
		} else if full || (len(txs) == 0 && f.Offset > 0) {
			// The page did not reach the end, or paged past it: count. A
			// write between the two statements can skew the total by its
			// size; a read transaction would serialise SQLite readers.
			var err error
			if f.DateFrom == "" && f.DateTo == "" {
				err = s.q.QueryRowContext(ctx, countAllBooked, accountID).Scan(&bookedTotal)
			} else {
				err = s.q.QueryRowContext(ctx, countBooked, accountID, from, to).Scan(&bookedTotal)
			}
			if err != nil {
				return nil, 0, s.fail(op, err)
			}
		}
	}
	if f.Pending {
		var rows *sql.Rows
		var err error
		if f.PendingFiltered {
			limit := s.d.noLimit
			if f.Limit > 0 {
				limit = int64(f.Limit)
			}
			rows, err = s.q.QueryContext(ctx, listPendingFiltered, accountID, f.DateFrom, f.DateTo, limit, int64(f.Offset))
		} else {
			rows, err = s.q.QueryContext(ctx, listPending, accountID)
		}
		if err != nil {
			return nil, 0, s.fail(op, err)
		}
		if txs, err = scanTransactions(rows, accountID, false, txs, nil); err != nil {
			return nil, 0, s.fail(op, err)
		}
	}
	if len(txs) == 0 && bookedTotal == 0 {
		if ok, err := accountExists(ctx, s.q, accountID); err != nil || !ok {
			return nil, 0, s.fail(op, orNoRows(err))
		}
	}
	return txs, bookedTotal, nil
}

// scanTransactions appends the rows of listBooked (total: its last
// column) or listPending (total nil) to out, and closes rows.
func scanTransactions(rows *sql.Rows, accountID string, booked bool, out []Transaction, total *int64) ([]Transaction, error) {
	defer rows.Close()
	// One destination list for every row: Scan overwrites each field.
	// The statements read the value date as NULLIF(value_date,
	// booking_date): NULL when it is the booking date, which is then
	// shared instead of read a second time (each text column read costs
	// the SQLite driver two allocations, and most transactions have one
	// date).
	t := Transaction{AccountID: accountID, Booked: booked}
	var valueDate sql.NullString
	dest := []any{&t.ID, &t.Amount, &t.Currency, &t.BookingDate, &valueDate, jsonScan{&t.Details}}
	if total != nil {
		dest = append(dest, total)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		t.ValueDate = t.BookingDate
		if valueDate.Valid {
			t.ValueDate = valueDate.String
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// GetTransaction returns one transaction of an account with its whole
// details (ListTransactions gives the lighter list view); a transaction of
// another account is ErrNotFound.
func (s *sqlStore) GetTransaction(ctx context.Context, accountID, id string) (*Transaction, error) {
	t := Transaction{AccountID: accountID}
	var extra json.RawMessage
	err := s.q.QueryRowContext(ctx, `SELECT id, booked, amount, currency, booking_date, value_date, details, details_extra, created_at
		FROM transactions WHERE account_id = $1 AND id = $2`, accountID, id).
		Scan(&t.ID, &t.Booked, &t.Amount, &t.Currency, &t.BookingDate, &t.ValueDate,
			jsonScan{&t.Details}, jsonScan{&extra}, instantScan{&t.CreatedAt})
	if err != nil {
		return nil, s.fail("get transaction", err)
	}
	t.Details = joinDetails(t.Details, extra)
	return &t, nil
}

// BookedDetails returns the whole details of every booked transaction of
// an account, in no set order.
func (s *sqlStore) BookedDetails(ctx context.Context, accountID string) ([]json.RawMessage, error) {
	const op = "booked details"
	rows, err := s.q.QueryContext(ctx, `SELECT details, details_extra FROM transactions WHERE account_id = $1 AND booked`, accountID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []json.RawMessage
	for rows.Next() {
		var d, extra json.RawMessage
		if err := rows.Scan(jsonScan{&d}, jsonScan{&extra}); err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, joinDetails(d, extra))
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}

// textArg is a JSON value's column argument: NULL when empty.
func textArg(j json.RawMessage) any {
	if len(j) == 0 {
		return nil
	}
	return string(j)
}
