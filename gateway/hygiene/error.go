package hygiene

// Error is a hygiene violation: Path names the JSON path ("$.paymentIds[3]")
// or the header ("PSU-IP-Address") at fault, and Text says what is wrong and
// how to fix it. Text never echoes the offending value.
type Error struct {
	// Path is a JSON path starting with "$", or a header name.
	Path string
	// Text is a short description of the problem, under 200 characters.
	Text string
}

// Error returns "<path>: <text>".
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Text
	}
	return e.Path + ": " + e.Text
}
