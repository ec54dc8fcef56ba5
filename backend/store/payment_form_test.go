package store

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/obgw/obgw/backend/payments"
)

// TestPaymentsInOneFormMigration16 migrates payments as the previous
// release wrote them: a body with an empty member, as sent, with no
// instruction (stored before migration 6); a body with the instruction
// the previous release encoded (encoding/json of its untagged struct);
// and a body that no longer parses. After migration 16 every body is in
// its served form, the first has the instruction its body parses to as
// of the day it was created, the second keeps its own (read back equal),
// and the third has none. Opening again changes nothing.
func TestPaymentsInOneFormMigration16(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t).(*sqlStore)
		const product = "domestic-norway-credit-transfers"
		body := `{"instructedAmount":{"currency":"NOK","amount":"150.00"},"debtorAccount":{"iban":"NO2912031010010"},` +
			`"creditorAccount":{"iban":"NO1212031020016"},"creditorName":"Mottaker AS","remittanceInformationUnstructured":"","endToEndIdentification":"E2E-1"}`
		create := func(requestID, body string) *Payment {
			p := &Payment{TPP: "PSDNO-FSA-1", RequestID: requestID, Kind: PaymentSingle, Product: product, Amount: 15000, Currency: "NOK",
				ExecutionDate: "2026-11-20", Body: json.RawMessage(body), Status: "RCVD"}
			wantErr(t, "CreatePayment", s.CreatePayment(ctx, p), nil)
			return p
		}
		old := create("old", body)
		typed := create("typed", body)
		broken := create("broken", `{"instructedAmount":{"currency":"NOK","amount":"-1"}}`)
		// The previous release's encoding of the typed one's instruction.
		previous := `{"Amount":{"Currency":"NOK","Minor":15000},"Date":"` + payments.Today(typed.CreatedAt) + `","Debtor":{"IBAN":"NO2912031010010","BBAN":"","Currency":""},` +
			`"Creditor":[{"Product":"domestic-norway-credit-transfers","InstructedAmount":{"Currency":"NOK","Minor":15000},` +
			`"DebtorAccount":{"IBAN":"NO2912031010010","BBAN":"","Currency":""},"CreditorAccount":{"IBAN":"NO1212031020016","BBAN":"","Currency":""},` +
			`"CreditorName":"Mottaker AS","CreditorAddress":null,"CreditorAgent":"","RequestedExecutionDate":"","RemittanceInformationUnstructured":"",` +
			`"RemittanceInformationStructured":null,"RemittanceInformationStructuredArray":null,"EndToEndIdentification":"E2E-1"}]}`
		for _, stmt := range []string{
			`UPDATE payments SET instruction = '` + previous + `' WHERE id = '` + typed.ID + `'`,
			`DELETE FROM schema_migrations WHERE version = 16`,
		} {
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		migrated := db.open(t)
		served, err := payments.ServedForm([]byte(body))
		wantErr(t, "ServedForm", err, nil)
		want, errs := payments.Parse(PaymentSingle, product, []byte(body), payments.Today(old.CreatedAt))
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		for _, p := range []*Payment{old, typed} {
			got, err := migrated.GetPayment(ctx, p.ID)
			wantErr(t, "GetPayment", err, nil)
			if string(got.Body) != string(served) {
				t.Errorf("%s: body %s, want %s", p.RequestID, got.Body, served)
			}
			if !reflect.DeepEqual(got.Instruction, want) {
				t.Errorf("%s: instruction %+v, want %+v", p.RequestID, got.Instruction, want)
			}
		}
		got, err := migrated.GetPayment(ctx, broken.ID)
		wantErr(t, "GetPayment broken", err, nil)
		if len(got.Instruction.Creditor) != 0 || string(got.Body) != `{"instructedAmount":{"currency":"NOK","amount":"-1"}}` {
			t.Errorf("the body that does not parse: %s, instruction %+v", got.Body, got.Instruction)
		}
		again := db.open(t)
		if got, err := again.GetPayment(ctx, old.ID); err != nil || string(got.Body) != string(served) || !reflect.DeepEqual(got.Instruction, want) {
			t.Errorf("opened again: %s %+v %v", got.Body, got.Instruction, err)
		}
	})
}
