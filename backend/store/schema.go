package store

// migrations is the schema, step by step. Ids are TEXT (opaque, random),
// money BIGINT minor units, civil dates TEXT 'YYYY-MM-DD', JSON TEXT (served
// byte for byte, so PostgreSQL's JSONB key reordering is avoided), instants
// {{instant}} (TIMESTAMPTZ, or fixed-width UTC text on SQLite); text that
// listings sort by is {{sorted_text}}, compared bytewise on both engines (SQLite
// always does; on PostgreSQL COLLATE "C" is also much cheaper to sort than
// a locale). Everything
// that hangs off a customer references it, directly or through an account
// or agreement, with ON DELETE CASCADE; every referencing column is indexed
// so the cascades do not scan.
var migrations = []migration{{
	version: 1,
	name:    "initial schema",
	stmts: []string{
		`CREATE TABLE customers (
			id TEXT PRIMARY KEY,
			number TEXT NOT NULL UNIQUE,
			name TEXT NOT NULL,
			type TEXT NOT NULL CHECK (type IN ('PRIVATE', 'CORPORATE')),
			created_at {{instant}} NOT NULL
		)`,
		`CREATE INDEX customers_created ON customers (created_at, id)`,

		`CREATE TABLE accounts (
			id TEXT PRIMARY KEY,
			customer_id TEXT NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
			kind TEXT NOT NULL CHECK (kind IN ('account', 'card')),
			name TEXT NOT NULL,
			product TEXT NOT NULL,
			cash_account_type TEXT NOT NULL,
			currency TEXT NOT NULL,
			bban TEXT NOT NULL,
			iban TEXT NOT NULL,
			masked_pan TEXT NOT NULL,
			credit_limit BIGINT NOT NULL,
			status TEXT NOT NULL,
			extra TEXT,
			created_at {{instant}} NOT NULL
		)`,
		`CREATE INDEX accounts_customer ON accounts (customer_id, created_at, id)`,
		`CREATE UNIQUE INDEX accounts_iban ON accounts (iban) WHERE iban <> ''`,
		`CREATE UNIQUE INDEX accounts_bban ON accounts (bban) WHERE bban <> ''`,

		`CREATE TABLE balances (
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			ord INTEGER NOT NULL,
			type TEXT NOT NULL,
			amount BIGINT NOT NULL,
			currency TEXT NOT NULL,
			reference_date TEXT NOT NULL,
			last_change {{instant}},
			PRIMARY KEY (account_id, ord)
		)`,

		`CREATE TABLE transactions (
			id {{sorted_text}} PRIMARY KEY,
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			booked BOOLEAN NOT NULL,
			amount BIGINT NOT NULL,
			currency TEXT NOT NULL,
			booking_date {{sorted_text}} NOT NULL,
			value_date TEXT NOT NULL,
			details TEXT,
			created_at {{instant}} NOT NULL
		)`,
		`CREATE INDEX transactions_list ON transactions
			(account_id, booked, booking_date DESC, created_at DESC, id)`,

		`CREATE TABLE agreements (
			id TEXT PRIMARY KEY,
			owner_id TEXT NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
			name TEXT NOT NULL,
			created_at {{instant}} NOT NULL
		)`,
		`CREATE INDEX agreements_owner ON agreements (owner_id)`,
		`CREATE TABLE agreement_engagements (
			agreement_id TEXT NOT NULL REFERENCES agreements (id) ON DELETE CASCADE,
			ord INTEGER NOT NULL,
			customer_id TEXT NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			roles TEXT NOT NULL,
			PRIMARY KEY (agreement_id, ord),
			UNIQUE (agreement_id, customer_id, account_id)
		)`,
		`CREATE INDEX agreement_engagements_customer ON agreement_engagements (customer_id)`,
		`CREATE INDEX agreement_engagements_account ON agreement_engagements (account_id)`,

		`CREATE TABLE psu_ids (
			tpp TEXT NOT NULL,
			customer_id TEXT NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
			psu_id TEXT NOT NULL,
			PRIMARY KEY (tpp, customer_id),
			UNIQUE (tpp, psu_id)
		)`,
		`CREATE INDEX psu_ids_customer ON psu_ids (customer_id)`,
		`CREATE TABLE corporate_ids (
			tpp TEXT NOT NULL,
			agreement_id TEXT NOT NULL REFERENCES agreements (id) ON DELETE CASCADE,
			corporate_id TEXT NOT NULL,
			PRIMARY KEY (tpp, agreement_id),
			UNIQUE (tpp, corporate_id)
		)`,
		`CREATE INDEX corporate_ids_agreement ON corporate_ids (agreement_id)`,

		`CREATE TABLE sca_flows (
			id TEXT PRIMARY KEY,
			tpp TEXT NOT NULL,
			tpp_session_id TEXT NOT NULL,
			redirect_uri TEXT NOT NULL,
			purpose TEXT NOT NULL,
			resource_id TEXT NOT NULL,
			state TEXT NOT NULL CHECK (state IN ('pending', 'completed', 'failed')),
			csrf TEXT NOT NULL,
			customer_id TEXT REFERENCES customers (id) ON DELETE CASCADE,
			context TEXT NOT NULL,
			agreement_id TEXT REFERENCES agreements (id) ON DELETE CASCADE,
			created_at {{instant}} NOT NULL,
			expires_at {{instant}}
		)`,
		`CREATE INDEX sca_flows_customer ON sca_flows (customer_id)`,
		`CREATE INDEX sca_flows_agreement ON sca_flows (agreement_id)`,

		`CREATE TABLE sessions (
			tpp TEXT NOT NULL,
			tpp_session_id TEXT NOT NULL,
			customer_id TEXT NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
			context TEXT NOT NULL,
			agreement_id TEXT REFERENCES agreements (id) ON DELETE CASCADE,
			valid_until {{instant}} NOT NULL,
			invalidated BOOLEAN NOT NULL,
			created_at {{instant}} NOT NULL,
			PRIMARY KEY (tpp, tpp_session_id)
		)`,
		`CREATE INDEX sessions_customer ON sessions (customer_id, tpp)`,
		`CREATE INDEX sessions_agreement ON sessions (agreement_id)`,

		`CREATE TABLE consents (
			id TEXT PRIMARY KEY,
			tpp TEXT NOT NULL,
			customer_id TEXT NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
			context TEXT NOT NULL,
			agreement_id TEXT REFERENCES agreements (id) ON DELETE CASCADE,
			status TEXT NOT NULL,
			created_at {{instant}} NOT NULL,
			valid_until {{instant}},
			last_sca {{instant}}
		)`,
		`CREATE INDEX consents_tpp_customer ON consents (tpp, customer_id, created_at)`,
		`CREATE INDEX consents_customer ON consents (customer_id)`,
		`CREATE INDEX consents_agreement ON consents (agreement_id)`,
		`CREATE TABLE consent_accounts (
			consent_id TEXT NOT NULL REFERENCES consents (id) ON DELETE CASCADE,
			ord INTEGER NOT NULL,
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			PRIMARY KEY (consent_id, ord)
		)`,
		`CREATE INDEX consent_accounts_account ON consent_accounts (account_id)`,
	},
}, {
	version: 2,
	name:    "booked transaction counts per day",
	// A listing's total (for its last link) is a sum over at most a few
	// hundred days instead of a count over every transaction: a page of an
	// account with a million transactions stays in single milliseconds.
	stmts: []string{
		`CREATE TABLE transaction_day_counts (
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			booking_date {{sorted_text}} NOT NULL,
			booked BIGINT NOT NULL,
			PRIMARY KEY (account_id, booking_date)
		)`,
		`INSERT INTO transaction_day_counts (account_id, booking_date, booked)
			SELECT account_id, booking_date, COUNT(*) FROM transactions
			WHERE booked = TRUE GROUP BY account_id, booking_date`,
	},
}, {
	version: 3,
	name:    "payments and signing baskets",
	stmts: []string{
		`CREATE TABLE payments (
			id TEXT PRIMARY KEY,
			tpp TEXT NOT NULL,
			request_id TEXT NOT NULL,
			kind TEXT NOT NULL CHECK (kind IN ('single', 'periodic', 'bulk')),
			product TEXT NOT NULL,
			customer_id TEXT REFERENCES customers (id) ON DELETE CASCADE,
			debtor_account_id TEXT REFERENCES accounts (id) ON DELETE CASCADE,
			amount BIGINT NOT NULL,
			currency TEXT NOT NULL,
			execution_date TEXT NOT NULL,
			body TEXT NOT NULL,
			status TEXT NOT NULL,
			funds_available TEXT NOT NULL,
			created_at {{instant}} NOT NULL,
			updated_at {{instant}} NOT NULL,
			UNIQUE (tpp, request_id)
		)`,
		`CREATE INDEX payments_due ON payments (status, execution_date)`,
		`CREATE INDEX payments_customer ON payments (customer_id)`,
		`CREATE INDEX payments_debtor ON payments (debtor_account_id)`,
		`CREATE TABLE baskets (
			id TEXT PRIMARY KEY,
			tpp TEXT NOT NULL,
			request_id TEXT NOT NULL,
			customer_id TEXT REFERENCES customers (id) ON DELETE CASCADE,
			status TEXT NOT NULL,
			created_at {{instant}} NOT NULL,
			UNIQUE (tpp, request_id)
		)`,
		`CREATE INDEX baskets_customer ON baskets (customer_id)`,
		`CREATE TABLE basket_payments (
			basket_id TEXT NOT NULL REFERENCES baskets (id) ON DELETE CASCADE,
			ord INTEGER NOT NULL,
			payment_id TEXT NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
			PRIMARY KEY (basket_id, ord)
		)`,
		`CREATE INDEX basket_payments_payment ON basket_payments (payment_id)`,
	},
}, {
	version: 4,
	name:    "tpp contacts",
	// One row per TPP: its contact addresses for operational notices, as
	// a JSON array of strings, replaced as a whole. A TPP's registration,
	// not bank data: nothing references it and the sandbox reset keeps it.
	stmts: []string{
		`CREATE TABLE tpp_contacts (
			tpp TEXT PRIMARY KEY,
			email_addresses TEXT NOT NULL,
			updated_at {{instant}} NOT NULL
		)`,
	},
}, {
	version: 5,
	name:    "sca flows: completing state, browser binding, identification attempts, outcome",
	// A flow is claimed (pending -> completing) before its payments are
	// authorised, so two confirm posts never both act; its outcome (the
	// redirect's query) is kept for the duplicate to replay. session_hash
	// is the SHA-256 of the secret cookie of the browser that identified,
	// never the secret; bind_key is the random key that secret was derived
	// from with that browser's own earlier cookie. SQLite cannot alter a CHECK constraint, so the
	// table is rebuilt, the same way on both engines.
	stmts: []string{
		`CREATE TABLE sca_flows_new (
			id TEXT PRIMARY KEY,
			tpp TEXT NOT NULL,
			tpp_session_id TEXT NOT NULL,
			redirect_uri TEXT NOT NULL,
			purpose TEXT NOT NULL,
			resource_id TEXT NOT NULL,
			state TEXT NOT NULL CHECK (state IN ('pending', 'completing', 'completed', 'failed')),
			csrf TEXT NOT NULL,
			customer_id TEXT REFERENCES customers (id) ON DELETE CASCADE,
			context TEXT NOT NULL,
			agreement_id TEXT REFERENCES agreements (id) ON DELETE CASCADE,
			created_at {{instant}} NOT NULL,
			expires_at {{instant}},
			session_hash TEXT NOT NULL DEFAULT '',
			bind_key TEXT NOT NULL DEFAULT '',
			identify_attempts INTEGER NOT NULL DEFAULT 0,
			outcome TEXT NOT NULL DEFAULT ''
		)`,
		`INSERT INTO sca_flows_new (id, tpp, tpp_session_id, redirect_uri, purpose, resource_id, state, csrf,
			customer_id, context, agreement_id, created_at, expires_at)
			SELECT id, tpp, tpp_session_id, redirect_uri, purpose, resource_id, state, csrf,
			customer_id, context, agreement_id, created_at, expires_at FROM sca_flows`,
		`DROP TABLE sca_flows`,
		`ALTER TABLE sca_flows_new RENAME TO sca_flows`,
		`CREATE INDEX sca_flows_customer ON sca_flows (customer_id)`,
		`CREATE INDEX sca_flows_agreement ON sca_flows (agreement_id)`,
	},
}, {
	version: 6,
	name:    "payments: the validated instruction, parsed once at initiation",
	// The backend's typed reading of the body (debtor, creditors,
	// amounts, date) as it validated it at initiation; authorisation, the
	// SCA page and execution read this instead of parsing the body again.
	// Payments stored before this step have none.
	stmts: []string{
		`ALTER TABLE payments ADD COLUMN instruction TEXT NOT NULL DEFAULT ''`,
	},
}, {
	version: 7,
	name:    "retention: job leases, indexes for the sweep of expired rows",
	// A lease names the one instance that runs a background job (a batch
	// run, the retention sweep) until it expires; the sweep finds expired
	// flows, sessions and consents by these indexes.
	stmts: []string{
		`CREATE TABLE job_leases (
			name TEXT PRIMARY KEY,
			holder TEXT NOT NULL,
			until {{instant}} NOT NULL
		)`,
		`CREATE INDEX sca_flows_expires ON sca_flows (expires_at)`,
		`CREATE INDEX sessions_valid_until ON sessions (valid_until)`,
		`CREATE INDEX consents_valid_until ON consents (valid_until)`,
	},
}, {
	version: 8,
	name:    "transactions: the list view apart from the details",
	// details keeps the members a listing shows, details_extra the rest
	// (see listMembers); transactions stored before this step are split
	// by splitStoredDetails.
	stmts: []string{
		`ALTER TABLE transactions ADD COLUMN details_extra TEXT`,
	},
	then: splitStoredDetails,
}, {
	version: 9,
	name:    "sealing keys of SCA links",
	// The keys that seal the SCA links of requests without consent, so
	// that such a request stores nothing (the flow is stored when the PSU
	// opens the link); every instance on the database shares them.
	stmts: []string{
		`CREATE TABLE sealing_keys (
			id TEXT PRIMARY KEY,
			secret TEXT NOT NULL,
			created_at {{instant}} NOT NULL
		)`,
	},
}, {
	version: 10,
	name:    "booked counts: a covering index of the per-day counts, an account's total",
	// countBooked sums an account's per-day counts on every page that does
	// not reach the end of the list; with the count in the index it reads
	// no table rows (on SQLite each day cost a look-up in the table).
	stmts: []string{
		`CREATE INDEX transaction_day_counts_cover ON transaction_day_counts (account_id, booking_date, booked)`,
		// Without date bounds the total is one row's: every page of an
		// account's whole history would otherwise sum all its days.
		`ALTER TABLE accounts ADD COLUMN booked_count BIGINT NOT NULL DEFAULT 0`,
		`UPDATE accounts SET booked_count = COALESCE((SELECT SUM(booked) FROM transaction_day_counts
			WHERE transaction_day_counts.account_id = accounts.id), 0)`,
	},
}, {
	version: 11,
	name:    "SCA flows: the PSU's login at the bank's identity provider",
	// A flow whose PSU authenticates at an OpenID Connect provider keeps
	// the pending authorization request (the state's hash, and the nonce,
	// PKCE verifier and browser binding its answer is checked with) and
	// whether the TPP preferred the bank's app.
	stmts: []string{
		`ALTER TABLE sca_flows ADD COLUMN app_preferred BOOLEAN NOT NULL DEFAULT FALSE`,
		`ALTER TABLE sca_flows ADD COLUMN login_state TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE sca_flows ADD COLUMN login TEXT NOT NULL DEFAULT ''`,
	},
}, {
	version: 12,
	name:    "SCA flows: the TPP's registered name",
	// The PSU's pages name the TPP as the register does, not by its
	// organisation identifier.
	stmts: []string{
		`ALTER TABLE sca_flows ADD COLUMN tpp_name TEXT NOT NULL DEFAULT ''`,
	},
}, {
	version: 13,
	name:    "one sandbox per TPP: customers and accounts owned by a TPP's sandbox",
	// owner is the organisation identifier of the TPP whose sandbox holds
	// the customer (and its accounts), empty for the bank's own customers
	// outside a sandbox: customer and account numbers are unique per
	// owner, so every TPP's sandbox holds the same data set. sandboxes
	// records the sandboxes seeded, so a sandbox is seeded once even when
	// its TPP deletes every customer.
	stmts: []string{
		`CREATE TABLE sandboxes (
			owner TEXT PRIMARY KEY,
			created_at {{instant}} NOT NULL
		)`,
		`ALTER TABLE accounts ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
		`DROP INDEX accounts_iban`,
		`DROP INDEX accounts_bban`,
		`CREATE UNIQUE INDEX accounts_iban ON accounts (owner, iban) WHERE iban <> ''`,
		`CREATE UNIQUE INDEX accounts_bban ON accounts (owner, bban) WHERE bban <> ''`,
		// DeleteSandbox deletes a TPP's flows by tpp.
		`CREATE INDEX sca_flows_tpp ON sca_flows (tpp)`,
	},
	postgres: []string{
		`ALTER TABLE customers ADD COLUMN owner TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE customers DROP CONSTRAINT customers_number_key`,
		`CREATE UNIQUE INDEX customers_number ON customers (owner, number)`,
	},
	// SQLite cannot drop a column's UNIQUE: the table is rebuilt as its
	// documentation prescribes, foreign keys off (see sqliteRebuild), so
	// the tables that reference customers keep every row and reference
	// the new table.
	sqliteRebuild: true,
	sqlite: []string{
		`CREATE TABLE customers_new (
			id TEXT PRIMARY KEY,
			owner TEXT NOT NULL DEFAULT '',
			number TEXT NOT NULL,
			name TEXT NOT NULL,
			type TEXT NOT NULL CHECK (type IN ('PRIVATE', 'CORPORATE')),
			created_at {{instant}} NOT NULL
		)`,
		`INSERT INTO customers_new (id, number, name, type, created_at)
			SELECT id, number, name, type, created_at FROM customers`,
		`DROP TABLE customers`,
		`ALTER TABLE customers_new RENAME TO customers`,
		`CREATE INDEX customers_created ON customers (created_at, id)`,
		`CREATE UNIQUE INDEX customers_number ON customers (owner, number)`,
	},
}, {
	version: 14,
	name:    "allowances shared by every instance",
	// A token bucket per key (the PSU page's attempts per client
	// address, a TPP's sandbox resets): attempts spent, decaying with
	// time, and when last spent (spent_at),
	// in Unix seconds. Sweep deletes idle rows.
	stmts: []string{
		`CREATE TABLE allowances (
			key TEXT PRIMARY KEY,
			spent DOUBLE PRECISION NOT NULL,
			spent_at DOUBLE PRECISION NOT NULL
		)`,
		`CREATE INDEX allowances_spent_at ON allowances (spent_at)`,
	},
}, {
	version: 15,
	name:    "trust documents shared by every instance",
	// The last good copy of each downloaded trust source (the EBA
	// register's institutions, trusted lists), by name, with what a
	// conditional GET sends back (etag, last_modified) and when it was
	// fetched: a restart without network starts from it, and every
	// instance serves the same.
	stmts: []string{
		`CREATE TABLE trust_documents (
			name TEXT PRIMARY KEY,
			body TEXT NOT NULL,
			etag TEXT NOT NULL,
			last_modified TEXT NOT NULL,
			fetched_at {{instant}} NOT NULL
		)`,
	},
}, {
	version: 16,
	name:    "payments in one form: the body as served, an instruction for every payment",
	// A payment's body becomes what a read serves (payments.ServedForm),
	// so that no read parses it; a payment stored before migration 6
	// gets its instruction, parsed from its body as of the day it was
	// created (paymentsInOneForm).
	then: paymentsInOneForm,
}, {
	version: 17,
	name:    "notices of changes to what a request's access is resolved from",
	// Every instance keeps resolved access in memory (access_cache.go)
	// and must hear of a change any instance commits: each table
	// ResolveAccess reads notifies accessChannel with its schema, once
	// per statement, delivered on commit. SQLite runs in one process,
	// which sees its own changes.
	postgres: []string{
		`CREATE OR REPLACE FUNCTION obgw_access_changed() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			PERFORM pg_notify('obgw_access', TG_TABLE_SCHEMA);
			RETURN NULL;
		END
		$$`,
		`CREATE TRIGGER consents_access_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON consents
			FOR EACH STATEMENT EXECUTE FUNCTION obgw_access_changed()`,
		`CREATE TRIGGER consent_accounts_access_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON consent_accounts
			FOR EACH STATEMENT EXECUTE FUNCTION obgw_access_changed()`,
		`CREATE TRIGGER sessions_access_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sessions
			FOR EACH STATEMENT EXECUTE FUNCTION obgw_access_changed()`,
		`CREATE TRIGGER psu_ids_access_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON psu_ids
			FOR EACH STATEMENT EXECUTE FUNCTION obgw_access_changed()`,
		`CREATE TRIGGER customers_access_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON customers
			FOR EACH STATEMENT EXECUTE FUNCTION obgw_access_changed()`,
		`CREATE TRIGGER accounts_access_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON accounts
			FOR EACH STATEMENT EXECUTE FUNCTION obgw_access_changed()`,
	},
}}
