package gateway

// Check identifies one stage of the pipeline.
type Check uint8

// The checks, in the order they run.
const (
	CheckHygiene Check = iota
	CheckDate
	CheckCertificate
	CheckSignature
	CheckRegistry
	CheckRole
	CheckQWAC
	CheckReplay
	CheckDigest
	CheckLimit
	numChecks
)

var checkNames = [numChecks]string{"hygiene", "date", "certificate", "signature", "registry", "role", "qwac", "replay", "digest", "limit"}

// String returns the check's name as used in configuration, placeholders
// ({http.vars.obgw.<name>}) and metrics.
func (c Check) String() string {
	if c < numChecks {
		return checkNames[c]
	}
	return "unknown"
}

var allChecks = func() []Check {
	out := make([]Check, numChecks)
	for i := range out {
		out[i] = Check(i)
	}
	return out
}()

// Checks returns every check in pipeline order. The slice is shared: do
// not modify it.
func Checks() []Check { return allChecks }

// ParseCheck returns the check named s.
func ParseCheck(s string) (Check, bool) {
	for i, n := range checkNames {
		if n == s {
			return Check(i), true
		}
	}
	return 0, false
}

// Decision is what a check decided for one request.
type Decision uint8

// Decisions.
const (
	// DecisionNone: the check did not run (an earlier check rejected).
	DecisionNone Decision = iota
	// DecisionPass: the check ran and passed.
	DecisionPass
	// DecisionFail: the check failed in enforce mode; the request is rejected.
	DecisionFail
	// DecisionReport: the check failed in report_only mode; the request
	// goes on and the failure is logged and listed in the context token.
	DecisionReport
	// DecisionSkip: the check did not apply (no client certificate, no
	// Digest on an optional route) or could not run because a check it
	// depends on failed in report_only mode.
	DecisionSkip
	// DecisionErrorAllowed: a dependency (registry, replay store) failed
	// and the policy's on_error allow let the request through.
	DecisionErrorAllowed
)

var decisionNames = [...]string{"", "pass", "fail", "report", "skip", "error_allowed"}

// NumChecks and NumDecisions size tables indexed by Check and Decision.
const (
	NumChecks    = int(numChecks)
	NumDecisions = len(decisionNames)
)

// String returns the decision's name.
func (d Decision) String() string { return decisionNames[d] }

// Mode says whether a failing check rejects the request.
type Mode uint8

// Modes.
const (
	// ModeEnforce rejects the request when the check fails.
	ModeEnforce Mode = iota
	// ModeReportOnly records the failure and lets the request go on.
	ModeReportOnly
)

var modeNames = [...]string{"enforce", "report_only"}

// String returns the mode's name as configured: enforce or report_only.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return "unknown"
}

// ParseMode parses "enforce" or "report_only".
func ParseMode(s string) (Mode, bool) {
	switch s {
	case "enforce":
		return ModeEnforce, true
	case "report_only":
		return ModeReportOnly, true
	}
	return 0, false
}

// OnError says what to do when a service a check depends on fails.
type OnError uint8

// OnError values.
const (
	// OnErrorDeny fails closed with 503 SERVICE_UNAVAILABLE.
	OnErrorDeny OnError = iota
	// OnErrorAllow lets the request through.
	OnErrorAllow
)

// ParseOnError parses "deny" or "allow".
func ParseOnError(s string) (OnError, bool) {
	switch s {
	case "deny":
		return OnErrorDeny, true
	case "allow":
		return OnErrorAllow, true
	}
	return 0, false
}
