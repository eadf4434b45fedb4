// The customer's service of the pull-and-filter tests: module
// github.com/acme/web, which burns CPU in its own package, in a module a
// replace directive builds from source (example.com/acme/shared => ../shared)
// and in a vendored third-party module (github.com/thirdparty/lib), and
// serves net/http/pprof on a loopback port it prints.
package main

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"

	"example.com/acme/shared"
	"github.com/acme/web/internal/work"
	"github.com/thirdparty/lib"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Printf("ready %d %d\n", os.Getpid(), ln.Addr().(*net.TCPAddr).Port)
	go func() {
		for {
			work.AcmeWebBurn(3000000)
			shared.AcmeSharedBurn(3000000)
			lib.ThirdpartySecretCompute(3000000)
		}
	}()
	http.Serve(ln, nil)
}
