package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/obgw/obgw/backend/payments"
)

// paymentsInOneForm is migration 16's rewrite: every stored payment gets
// the one form a payment has since: its body as a read serves it
// (payments.ServedForm) and its instruction (payments.Parse of the body
// as of the day it was created), for those stored before migration 6.
// A body that no longer parses keeps no instruction, and the backend
// refuses to act on that payment rather than read its body again.
func paymentsInOneForm(ctx context.Context, tx *sql.Tx) error {
	type row struct {
		id, kind, product, instruction string
		body                           json.RawMessage
		created                        time.Time
	}
	after := ""
	for {
		rows, err := tx.QueryContext(ctx, `SELECT id, kind, product, body, created_at, instruction FROM payments
			WHERE id > $1 ORDER BY id LIMIT 500`, after)
		if err != nil {
			return err
		}
		var batch []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.kind, &r.product, jsonScan{&r.body}, instantScan{&r.created}, &r.instruction); err != nil {
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
			served, err := payments.ServedForm(r.body)
			if err != nil {
				return fmt.Errorf("payment %s: its stored body: %w", r.id, err)
			}
			instruction := r.instruction
			if instruction == "" {
				if in, errs := payments.Parse(r.kind, r.product, r.body, payments.Today(r.created)); len(errs) == 0 {
					if instruction, err = instructionArg(&in); err != nil {
						return fmt.Errorf("payment %s: %w", r.id, err)
					}
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE payments SET body = $1, instruction = $2 WHERE id = $3`,
				string(served), instruction, r.id); err != nil {
				return err
			}
		}
		after = batch[len(batch)-1].id
	}
}
