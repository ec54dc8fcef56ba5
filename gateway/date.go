package gateway

import (
	"net/http"
	"strconv"
	"time"

	"github.com/obgw/obgw/bgerror"
)

// checkDate demands a Date header in IMF-fixdate form within skew of now in
// both directions.
func checkDate(h http.Header, now time.Time, skew time.Duration) *bgerror.Error {
	v := h["Date"]
	if len(v) == 0 || v[0] == "" {
		return dateErr("the Date header is missing; send the current time as an IMF-fixdate, e.g. Sun, 22 Nov 2026 10:00:00 GMT")
	}
	t, err := time.Parse(http.TimeFormat, v[0])
	if err != nil {
		return dateErr("the Date header is not an IMF-fixdate such as Sun, 22 Nov 2026 10:00:00 GMT")
	}
	d := now.Sub(t)
	if d > skew || d < -skew {
		return dateErr("the Date header is more than " + strconv.FormatFloat(skew.Seconds(), 'f', -1, 64) + " seconds from the bank's clock; synchronise the clock and sign again")
	}
	return nil
}

func dateErr(text string) *bgerror.Error {
	e := bgerror.New(bgerror.CodeTimestampInvalid, text)
	e.Path = "Date"
	return e
}
