package fixes_test

import (
	"fmt"
	"net/http"
	"time"

	"github.com/obgw/obgw/gateway/fixes"
)

// The gateway's use: parse the request header, decide at the gateway's
// clock, echo the fixes in effect, and rewrite the backend's response only
// when some fix is not in effect.
func ExampleRegistry_Rewrite() {
	registry, err := fixes.NewRegistry(fixes.DefaultFixes())
	if err != nil {
		panic(err)
	}
	request := http.Header{}
	request.Add("X-Accept-Fix", "Longer-Names, no-such-fix")
	now := time.Date(2024, time.October, 15, 12, 0, 0, 0, time.UTC)

	inEffect := registry.InEffect(fixes.ParseHeader(request.Values("X-Accept-Fix")), now)
	fmt.Println("x-accept-fix:", inEffect)
	fmt.Println("legacy:", registry.Legacy(inEffect))

	body := []byte(`{"account":{"resourceId":"enc!!QUJD","cashAccountType":"CACC","name":"Brukskonto","balances":[{"balanceAmount":{"currency":"NOK","amount":"-12.50"}}]}}`)
	out, err := registry.Rewrite(body, inEffect)
	fmt.Println(string(out), err)
	// Output:
	// x-accept-fix: amount-as-string,longer-names
	// legacy: cardaccount-switch-originalamount-and-transactionamount,cash-account-type-iso
	// {"account":{"resourceId":"enc!!QUJD","cashAccountType":"CURRENT","name":"Brukskonto","balances":[{"balanceAmount":{"currency":"NOK","amount":"-12.50"}}]}} <nil>
}
