package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/obgw/obgw/tppclient"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "sca",
		Usage: "<scaRedirect> --customer <number> [--context private|corporate[:<agreement>]] [--accounts all|first|<iban,...>] [--cancel] [--gateway <url>] [--pki <dir>]",
		Short: "Plays the PSU on the sandbox's SCA pages, and prints the redirect to the TPP",
		Long: `
Completes a sandbox SCA from the terminal, as a PSU in a browser would: it
opens the scaRedirect link (a sealed link /v1/sca/s/... redirects to the
flow's page), keeps the page's cookies, types the customer number
(--customer), chooses the context (--context: private, the default;
corporate, the PSU's one agreement; or corporate:<agreement name or id>),
ticks accounts (--accounts: all, the default; first; or IBANs, masked card
numbers or account ids separated by commas) and confirms, or approves the
payment shown. With --cancel it presses Cancel on the last page instead
(without --customer, on the first).

It stops at the redirect to the TPP and prints its URL, then its query one
"name: value" a line: psu-id, tpp-session-id, context and psu-corporate-id
after success (exit status 0), system, status, code and message after a
failure (exit status 1; --cancel ends so). What each page asked and what
was answered goes to standard error.

It drives only the sandbox's customer-number page: where the bank logs PSUs
in at its identity provider (a "Log in" button), complete SCA in a
browser. A link without scheme and host (the href of a _links.scaRedirect)
is taken relative to --gateway. Like tpp-request, it trusts the system's
roots and the test PKI's TLS CA (tls-ca.pem in --pki).

Quote the link in single quotes: ids hold "!!", which interactive bash
expands.

Example, with 'make run' in another terminal:

	bin/obgw sca '/v1/sca/enc!!...' --customer 15038540189
`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("customer", "", "Customer number to identify with (sandbox data set: 15038540189 Kari, 22079140086 Ola)")
			cmd.Flags().String("context", "private", "private, corporate, or corporate:<agreement name or id>")
			cmd.Flags().String("accounts", "all", "all, first, or IBANs, masked card numbers or account ids separated by commas")
			cmd.Flags().Bool("cancel", false, "Press Cancel on the last page (without --customer: on the first)")
			cmd.Flags().String("gateway", "https://localhost:8443", "Base URL a link without scheme and host is taken relative to")
			cmd.Flags().String("pki", "testdata/pki", "Directory of the test PKI, whose tls-ca.pem is trusted")
			cmd.Args = cobra.ExactArgs(1)
			cmd.RunE = sayPlainly("sca", sca)
		},
	})
}

// sca plays the flow fl names and prints the redirect to the TPP to
// stdout, its progress to stderr.
func sca(fl caddycmd.Flags, stdout, stderr io.Writer) (int, error) {
	base, err := url.Parse(fl.String("gateway"))
	if err != nil || !base.IsAbs() {
		return caddy.ExitCodeFailedStartup, fmt.Errorf("--gateway %q is not an absolute URL", fl.String("gateway"))
	}
	link, err := base.Parse(fl.Arg(0))
	if err != nil {
		return caddy.ExitCodeFailedStartup, fmt.Errorf("the SCA link %q is not a URL: %v", fl.Arg(0), err)
	}
	opts := scaOptions{
		Customer: fl.String("customer"), Context: fl.String("context"), Accounts: fl.String("accounts"),
		Cancel: fl.Bool("cancel"), Progress: stderr,
	}
	client := &http.Client{Transport: tppclient.NewTLSTransport(gatewayRoots(fl.String("pki")), nil), Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	redirect, err := playSCA(ctx, client, link.String(), opts)
	if err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	fmt.Fprintln(stdout, redirect)
	q := redirect.Query()
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range q[name] {
			fmt.Fprintf(stdout, "%s: %s\n", name, v)
		}
	}
	if !q.Has("psu-id") {
		// The failure redirect (system, status, code, message): the
		// flow is over, and the TPP learns no PSU-ID.
		return caddy.ExitCodeFailedStartup, fmt.Errorf("the SCA ended in failure: %s %s: %s", q.Get("status"), q.Get("code"), q.Get("message"))
	}
	return caddy.ExitCodeSuccess, nil
}

// scaOptions are the PSU's answers on the SCA pages.
type scaOptions struct {
	// Customer is the customer number typed on the identify step; empty
	// only with Cancel, which then cancels there.
	Customer string
	// Context is "private", "corporate" (the PSU's one agreement) or
	// "corporate:<agreement name or id>"; empty means private.
	Context string
	// Accounts is "all", "first", or IBANs, masked card numbers or
	// account ids separated by commas; empty means all.
	Accounts string
	// Cancel presses Cancel on the last step instead of confirming.
	Cancel bool
	// Progress receives a line for each page and answer; nil discards
	// them.
	Progress io.Writer
}

// maxSCARequests bounds the requests of one flow: a link, a redirect and
// at most three forms, each answered by a redirect to the next page, are
// about ten.
const maxSCARequests = 20

// errLoginPage: the flow logs the PSU in at the bank's identity provider.
var errLoginPage = errors.New(`this SCA page logs the PSU in at the bank's identity provider (it shows a "Log in" button); ` +
	`bin/obgw sca drives only the sandbox's customer-number page: complete this SCA in a browser`)

// playSCA opens link, the scaRedirect of a flow on a sandbox's SCA pages,
// with client's transport, answers each page as opts say with the
// page's own form (its csrf token, the cookies it set), and returns the
// redirect to the TPP that ends the flow, success or failure. It follows
// redirects only within the SCA pages (the link's scheme and host, a path
// with /v1/sca/); the first redirect elsewhere is the TPP's, which it
// never requests. Any other answer, a page refusing an answer or a page
// it cannot fill in (the identity provider's "Log in") is an error.
func playSCA(ctx context.Context, client *http.Client, link string, opts scaOptions) (*url.URL, error) {
	if opts.Customer == "" && !opts.Cancel {
		return nil, errors.New("a customer number is needed (--customer); the sandbox data set has 15038540189 (Kari Nordmann)")
	}
	start, err := url.Parse(link)
	if err != nil || !start.IsAbs() {
		return nil, fmt.Errorf("the SCA link %q is not an absolute URL", link)
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	p := &scaPlayer{
		opts: opts,
		client: &http.Client{Transport: client.Transport, Timeout: client.Timeout, Jar: jar,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, start.String(), nil)
	if err != nil {
		return nil, err
	}
	for range maxSCARequests {
		resp, err := p.client.Do(req)
		if err != nil {
			return nil, err
		}
		next, redirect, err := p.answer(ctx, resp)
		resp.Body.Close()
		if err != nil || redirect != nil {
			return redirect, err
		}
		req = next
	}
	return nil, fmt.Errorf("no redirect to the TPP after %d requests", maxSCARequests)
}

// scaPlayer is the state of one playSCA.
type scaPlayer struct {
	opts   scaOptions
	client *http.Client
	// submitted is the step of the last form submitted, "" before any.
	submitted string
	// titled and summed: the first page's title and the first payment
	// summary were printed.
	titled, summed bool
}

// answer reads resp and returns the request that answers it, or the
// redirect to the TPP.
func (p *scaPlayer) answer(ctx context.Context, resp *http.Response) (*http.Request, *url.URL, error) {
	at := resp.Request.URL
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		to, err := resp.Location()
		if err != nil {
			return nil, nil, fmt.Errorf("%s answered %s without a usable Location: %v", at, resp.Status, err)
		}
		if to.Scheme != at.Scheme || to.Host != at.Host || !strings.Contains(to.Path, "/v1/sca/") {
			return nil, to, nil
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, to.String(), nil)
		return req, nil, err
	case http.StatusOK:
	default:
		return nil, nil, fmt.Errorf("%s answered %s: %s", at, resp.Status, snippet(resp.Body))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/html" {
		return nil, nil, fmt.Errorf("%s answered %s, not an SCA page: %s", at, mt, snippet(resp.Body))
	}
	page, err := readSCAForm(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", at, err)
	}
	if !p.titled {
		p.titled = true
		fmt.Fprintf(p.opts.Progress, "sca: %s: %s\n", page.Title, page.Intro)
	}
	if !p.summed && len(page.Summary) > 0 {
		p.summed = true
		for _, s := range page.Summary {
			fmt.Fprintf(p.opts.Progress, "sca:   %s\n", s)
		}
	}
	if page.Error != "" && p.submitted != "" {
		return nil, nil, fmt.Errorf("the bank refused the %s step: %s", p.submitted, page.Error)
	}
	form, step, err := p.fill(page)
	if err != nil {
		return nil, nil, err
	}
	if step == p.submitted {
		return nil, nil, fmt.Errorf("the page asks for the %s step again", step)
	}
	p.submitted = step
	form.Set("step", step)
	action, err := at.Parse(page.Action)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: the form's action %q: %v", at, page.Action, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, action.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req, nil, nil
}

// fill answers the page's step as the options say: it returns the form's
// fields and the step button pressed.
func (p *scaPlayer) fill(page *scaForm) (url.Values, string, error) {
	form := url.Values{}
	for k, vs := range page.Hidden {
		form[k] = append([]string(nil), vs...)
	}
	say := func(format string, a ...any) { fmt.Fprintf(p.opts.Progress, "sca: "+format+"\n", a...) }
	switch {
	case page.Steps["login"]:
		return nil, "", errLoginPage
	case page.Steps["identify"] && p.opts.Customer == "":
		say("cancel")
		return form, "cancel", nil
	case page.Steps["identify"]:
		say("identify as %s", p.opts.Customer)
		form.Set("customerNumber", p.opts.Customer)
		return form, "identify", nil
	case page.Steps["context"]:
		c, err := chooseContext(page.Choices["context"], p.opts.Context)
		if err != nil {
			return nil, "", err
		}
		say("act as: %s", c.Label)
		form.Set("context", c.Value)
		return form, "context", nil
	case page.Steps["confirm"] && p.opts.Cancel:
		say("cancel")
		return form, "cancel", nil
	case page.Steps["confirm"] && len(page.Choices["account"]) > 0:
		chosen, err := chooseAccounts(page.Choices["account"], p.opts.Accounts)
		if err != nil {
			return nil, "", err
		}
		for _, c := range chosen {
			say("share: %s", c.Label)
			form.Add("account", c.Value)
		}
		say("confirm")
		return form, "confirm", nil
	case page.Steps["confirm"]:
		say("confirm")
		return form, "confirm", nil
	}
	return nil, "", fmt.Errorf("the page %q offers no step this command knows (%s)", page.Title, strings.Join(sortedKeys(page.Steps), ", "))
}

// chooseContext picks the radio button of the context option: "private"
// (or empty), "corporate" (the only agreement offered) or
// "corporate:<agreement>", which names an agreement by its id or by the
// name its label ends with.
func chooseContext(choices []scaChoice, option string) (scaChoice, error) {
	kind, agreement, _ := strings.Cut(option, ":")
	var corporate []scaChoice
	for _, c := range choices {
		switch {
		case c.Value == "PRIVATE" && (option == "" || strings.EqualFold(option, "private")):
			return c, nil
		case strings.HasPrefix(c.Value, "CORPORATE:"):
			corporate = append(corporate, c)
		}
	}
	offered := labels(choices)
	if !strings.EqualFold(kind, "corporate") {
		if strings.EqualFold(option, "private") {
			return scaChoice{}, fmt.Errorf("the page offers no private context; offered: %s", offered)
		}
		return scaChoice{}, fmt.Errorf("--context %q is not private, corporate or corporate:<agreement>", option)
	}
	if agreement == "" {
		if len(corporate) != 1 {
			return scaChoice{}, fmt.Errorf("the page offers %d agreements: name one with --context corporate:<agreement>; offered: %s", len(corporate), offered)
		}
		return corporate[0], nil
	}
	for _, c := range corporate {
		label := strings.ToLower(c.Label)
		name := strings.ToLower(strings.TrimSpace(agreement))
		if c.Value == "CORPORATE:"+agreement || label == name || strings.HasSuffix(label, " "+name) {
			return c, nil
		}
	}
	return scaChoice{}, fmt.Errorf("the page offers no agreement %q; offered: %s", agreement, offered)
}

// chooseAccounts picks the check boxes of the accounts option: "all" (or
// empty), "first", or a comma-separated list of account numbers (IBAN,
// masked card number: a word of the label) or account ids (the box's
// value), each of which must be offered.
func chooseAccounts(boxes []scaChoice, option string) ([]scaChoice, error) {
	switch strings.ToLower(option) {
	case "", "all":
		return boxes, nil
	case "first":
		return boxes[:1], nil
	}
	var chosen []scaChoice
	for _, want := range strings.Split(option, ",") {
		want = strings.TrimSpace(want)
		found := false
		for _, b := range boxes {
			if b.Value == want || containsFold(strings.Fields(b.Label), want) {
				chosen, found = append(chosen, b), true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("the page offers no account %q; offered: %s", want, labels(boxes))
		}
	}
	return chosen, nil
}

func containsFold(words []string, w string) bool {
	for _, x := range words {
		if strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

func labels(cs []scaChoice) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Label
	}
	return strings.Join(out, "; ")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// snippet is the start of an error answer's body, on one line.
func snippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 512))
	return strings.Join(strings.Fields(string(b)), " ")
}
