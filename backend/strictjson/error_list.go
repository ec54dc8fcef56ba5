package strictjson

import "strconv"

// MaxFieldErrors bounds the FieldErrors a Checker collects for one body.
const MaxFieldErrors = 50

// errorList collects the FieldErrors of one body, at most MaxFieldErrors:
// when more are found, the last kept one is replaced by a note that there
// are more, and further ones are dropped.
type errorList struct {
	errs []FieldError
	full bool
}

func (l *errorList) add(path, rule string) {
	if l.full {
		return
	}
	if len(l.errs) == MaxFieldErrors {
		l.errs[MaxFieldErrors-1] = FieldError{Path: "$", Rule: "more than " + strconv.Itoa(MaxFieldErrors-1) +
			" errors; the first " + strconv.Itoa(MaxFieldErrors-1) + " are listed, fix them and send again"}
		l.full = true
		return
	}
	l.errs = append(l.errs, FieldError{Path: path, Rule: rule})
}
