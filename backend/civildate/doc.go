// Package civildate handles the calendar dates (YYYY-MM-DD) of request
// bodies and of the bank: whether a string names a real day (Valid), and
// which day it is at the bank, in Norway (Today, in Oslo). The time zone
// database is embedded, so the host needs none.
package civildate
