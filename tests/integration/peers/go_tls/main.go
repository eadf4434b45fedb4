// A Go HTTPS server and client for tests/integration/test_tls.sh: both ends
// use crypto/tls over net.TCPConn, HTTP/1.1 only (ALPN h2 off), so every
// request is one span on each end.
//
//	go_tls server ADDR CERT KEY        serve GET /items/N until killed
//	go_tls client URL WORKERS REQUESTS  WORKERS x REQUESTS sequential GETs
package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

func serve(addr, cert, key string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/items/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "item\n")
	})
	srv := &http.Server{
		Addr:         addr,
		Handler:      mux,
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
	}
	return srv.ListenAndServeTLS(cert, key)
}

func run(url string, workers, requests int) error {
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
		TLSNextProto:      map[string]func(string, *tls.Conn) http.RoundTripper{},
		ForceAttemptHTTP2: false,
		MaxIdleConnsPerHost: workers,
	}
	client := &http.Client{Transport: tr}
	var failed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < requests; i++ {
				resp, err := client.Get(fmt.Sprintf("%s/items/%d", url, w*requests+i))
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					failed.Add(1)
				}
			}
		}(w)
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		return fmt.Errorf("%d requests failed", n)
	}
	return nil
}

func main() {
	var err error
	switch {
	case len(os.Args) == 5 && os.Args[1] == "server":
		err = serve(os.Args[2], os.Args[3], os.Args[4])
	case len(os.Args) == 5 && os.Args[1] == "client":
		w, e1 := strconv.Atoi(os.Args[3])
		n, e2 := strconv.Atoi(os.Args[4])
		if e1 != nil || e2 != nil {
			err = fmt.Errorf("bad counts")
		} else {
			err = run(os.Args[2], w, n)
		}
	default:
		err = fmt.Errorf("usage: go_tls server ADDR CERT KEY | client URL WORKERS REQUESTS")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go_tls:", err)
		os.Exit(1)
	}
}
