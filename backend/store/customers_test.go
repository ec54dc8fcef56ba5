package store

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestCustomers(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db testDB) {
		s := db.open(t)
		c1 := mustCustomer(t, s, "01017012345", CustomerPrivate)
		c2 := mustCustomer(t, s, "912345678", CustomerCorporate)
		if !strings.HasPrefix(c1.ID, idPrefix) || c1.ID == c2.ID {
			t.Fatalf("ids %q, %q: want distinct %q ids", c1.ID, c2.ID, idPrefix)
		}
		if c1.CreatedAt.Location() != time.UTC || c1.CreatedAt.Nanosecond()%1000 != 0 {
			t.Fatalf("CreatedAt %v: want UTC, whole microseconds", c1.CreatedAt)
		}

		got, err := s.GetCustomer(ctx, c1.ID)
		wantErr(t, "GetCustomer", err, nil)
		if !reflect.DeepEqual(got, c1) {
			t.Fatalf("GetCustomer = %+v, want %+v", got, c1)
		}
		got, err = s.GetCustomerByNumber(ctx, "", c2.Number)
		wantErr(t, "GetCustomerByNumber", err, nil)
		if !reflect.DeepEqual(got, c2) {
			t.Fatalf("GetCustomerByNumber = %+v, want %+v", got, c2)
		}
		list, err := s.ListCustomers(ctx, "")
		wantErr(t, "ListCustomers", err, nil)
		if !reflect.DeepEqual(list, []Customer{*c1, *c2}) {
			t.Fatalf("ListCustomers = %+v, want c1, c2", list)
		}

		tests := []struct {
			name string
			call func() error
			want error
		}{
			{"duplicate number", func() error {
				return s.CreateCustomer(ctx, &Customer{Number: c1.Number, Name: "Other", Type: CustomerPrivate})
			}, ErrConflict},
			{"unknown type", func() error {
				return s.CreateCustomer(ctx, &Customer{Number: "1", Name: "X", Type: "PERSON"})
			}, ErrInvalid},
			{"get unknown", func() error { _, err := s.GetCustomer(ctx, "enc!!nope"); return err }, ErrNotFound},
			{"get unknown number", func() error { _, err := s.GetCustomerByNumber(ctx, "", "000"); return err }, ErrNotFound},
			{"delete unknown", func() error { return s.DeleteCustomer(ctx, "enc!!nope") }, ErrNotFound},
		}
		for _, tt := range tests {
			wantErr(t, tt.name, tt.call(), tt.want)
		}

		wantErr(t, "DeleteCustomer", s.DeleteCustomer(ctx, c1.ID), nil)
		_, err = s.GetCustomer(ctx, c1.ID)
		wantErr(t, "GetCustomer after delete", err, ErrNotFound)
		list, err = s.ListCustomers(ctx, "")
		wantErr(t, "ListCustomers", err, nil)
		if len(list) != 1 || list[0].ID != c2.ID {
			t.Fatalf("ListCustomers after delete = %+v, want c2 only", list)
		}
		// The number is free again.
		mustCustomer(t, s, c1.Number, CustomerPrivate)
	})
}
