// A Go HTTPS server and client for tests/integration/test_tls.sh: both ends
// use crypto/tls over net.TCPConn, HTTP/1.1 only (ALPN h2 off), so every
// request is one span on each end.
//
//	go_tls server ADDR CERT KEY        serve GET /items/N until killed
//	go_tls client URL WORKERS REQUESTS  WORKERS x REQUESTS sequential GETs
//	go_tls grow ADDR REQUESTS           REQUESTS GETs on one connection, each
//	                                    written by a new goroutine at a new
//	                                    stack depth (see grow below)
package main

import (
	"bufio"
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
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
		ForceAttemptHTTP2:   false,
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

// descend calls itself depth times, then writes req: each call takes a few
// dozen bytes of a goroutine's small first stack, so over successive depths
// the stack runs out at every function on the way, (*Conn).Write's own
// entry among them.  There the runtime grows the stack and restarts Write
// from its first instruction, which a probe at that instruction would see
// as a second call.
//
//go:noinline
func descend(depth int, c *tls.Conn, req []byte) error {
	var pad [4]uint64
	pad[depth%4] = uint64(depth)
	if depth > 0 {
		return descend(depth-1, c, req)
	}
	_, err := c.Write(req)
	if pad[0] > 1<<62 {
		return fmt.Errorf("unreachable")
	}
	return err
}

func grow(addr string, requests int) error {
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	if err != nil {
		return err
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := 0; i < requests; i++ {
		req := []byte(fmt.Sprintf("GET /items/%d HTTP/1.1\r\nHost: %s\r\n\r\n", i, addr))
		done := make(chan error, 1)
		go func(depth int) { done <- descend(depth, c, req) }(i % 256)
		if err := <-done; err != nil {
			return err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	return nil
}

func main() {
	var err error
	switch {
	case len(os.Args) == 5 && os.Args[1] == "server":
		err = serve(os.Args[2], os.Args[3], os.Args[4])
	case len(os.Args) == 4 && os.Args[1] == "grow":
		n, e := strconv.Atoi(os.Args[3])
		if e != nil {
			err = fmt.Errorf("bad count")
		} else {
			err = grow(os.Args[2], n)
		}
	case len(os.Args) == 5 && os.Args[1] == "client":
		w, e1 := strconv.Atoi(os.Args[3])
		n, e2 := strconv.Atoi(os.Args[4])
		if e1 != nil || e2 != nil {
			err = fmt.Errorf("bad counts")
		} else {
			err = run(os.Args[2], w, n)
		}
	default:
		err = fmt.Errorf("usage: go_tls server ADDR CERT KEY | client URL WORKERS REQUESTS | grow ADDR REQUESTS")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "go_tls:", err)
		os.Exit(1)
	}
}
