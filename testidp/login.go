package testidp

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"strings"
)

const (
	// loginPath is the login page, below the issuer.
	loginPath = "/login"
	// loginRequestParam names the authorization request id, in the login
	// URL op redirects to and in the login form's hidden field.
	loginRequestParam = "authRequestID"
)

// loginPage is the login UI op leaves to its user: a form asking for the
// national identity number and password. Its element ids (username,
// password, submit, error) are stable, for browser tests to fill and
// click.
//
// The only binding between the form and the authorization request is the
// request id in the hidden field, a random 128-bit value no other site can
// know, which also serves as the form's CSRF token; no cookie is needed.
type loginPage struct {
	storage *storage
	// callbackURL is where the browser continues after a login: op's
	// authorize callback for the request id (op.AuthCallbackURL).
	callbackURL func(ctx context.Context, id string) string
}

type loginView struct {
	ID        string
	Username  string
	Error     string
	ClientID  string
	ACRValues string
	LoginHint string
}

var loginTemplate = template.Must(template.New("login").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log in – obgw test identity provider</title>
<style>
body { font-family: system-ui, sans-serif; background: #f4f5f7; margin: 0; }
main { max-width: 24rem; margin: 4rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px rgba(0,0,0,.15); }
label { display: block; margin-top: 1rem; font-weight: 600; }
input { width: 100%; box-sizing: border-box; padding: .5rem; margin-top: .25rem; font-size: 1rem; }
button { margin-top: 1.5rem; width: 100%; padding: .6rem; font-size: 1rem; background: #39134c; color: #fff; border: 0; border-radius: 4px; cursor: pointer; }
#error { color: #a00; background: #fee; padding: .5rem; border-radius: 4px; }
#request { margin-top: 1.5rem; color: #666; font-size: .85rem; }
</style>
</head>
<body>
<main>
<h1>Log in</h1>
<p>obgw test identity provider – for tests and demos only.</p>
{{if .Error}}<p id="error" role="alert">{{.Error}}</p>
{{end}}<form id="login" method="post" action="` + loginPath + `">
<input type="hidden" name="` + loginRequestParam + `" value="{{.ID}}">
<label for="username">National identity number</label>
<input id="username" name="username" inputmode="numeric" autocomplete="username" value="{{.Username}}" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button id="submit" type="submit">Log in</button>
</form>
<p id="request">Client <code>{{.ClientID}}</code>{{if .ACRValues}}, acr_values <code>{{.ACRValues}}</code>{{end}}{{if .LoginHint}}, login_hint <code>{{.LoginHint}}</code>{{end}}</p>
</main>
</body>
</html>
`))

func (l *loginPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		l.show(w, r.URL.Query().Get(loginRequestParam), "", "")
	case http.MethodPost:
		l.submit(w, r)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// show renders the form for the pending authorization request id, with
// the username kept and an error message after a failed attempt.
func (l *loginPage) show(w http.ResponseWriter, id, username, errMsg string) {
	req, err := l.storage.pendingAuthRequest(id)
	if err != nil {
		http.Error(w, "unknown or expired authorization request: start again from the relying party", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = loginTemplate.Execute(w, loginView{
		ID:        id,
		Username:  username,
		Error:     errMsg,
		ClientID:  req.clientID,
		ACRValues: strings.Join(req.acrValues, " "),
		LoginHint: req.loginHint,
	})
}

// submit checks the credentials: on success the browser goes on to op's
// callback, which redirects it to the relying party with a code; on wrong
// credentials it gets the form again, with an error, and may retry.
func (l *loginPage) submit(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "cannot parse the login form: "+err.Error(), http.StatusBadRequest)
		return
	}
	id := r.PostForm.Get(loginRequestParam)
	username := strings.TrimSpace(r.PostForm.Get("username"))
	err := l.storage.login(id, username, r.PostForm.Get("password"))
	switch {
	case err == nil:
		http.Redirect(w, r, l.callbackURL(r.Context(), id), http.StatusSeeOther)
	case errors.Is(err, errWrongCredentials):
		l.show(w, id, username, "Unknown national identity number or wrong password.")
	default:
		http.Error(w, "unknown or expired authorization request: start again from the relying party", http.StatusBadRequest)
	}
}
