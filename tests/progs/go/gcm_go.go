// A known AES-GCM schedule through Go's own crypto, for ringside's tests.
//
//	gcm_go schedule SEALS OPENS BADTAGS     AES-128 and AES-256 each: SEALS seals,
//	                                        OPENS good opens, BADTAGS opens of a
//	                                        corrupted tag; prints "expect" lines
//	gcm_go stress GOROUTINES ROUNDS         the same work on thousands of goroutines
//	                                        with deep recursion (forced stack
//	                                        growth) and GC running
//	gcm_go tls-server ADDR FILE CERT KEY [1.2|1.3] [128|256]
//	                                        serve FILE once over TLS (AES-GCM only)
//
// Every mode prints "ready PID" and waits for a line on stdin before it
// starts, so a tracer can attach first; afterwards it prints what it did,
//
//	expect go DIR BITS ops=N aad=A payload=P tagfail=F
//
// then "done", and stays until stdin ends (so a tracer can still resolve its
// addresses).
package main

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"crypto/tls"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

type tally struct{ ops, aad, payload, tagfail int64 }

// [dir: 0 seal, 1 open][bits: 128, 256]
type tallies [2][2]tally

func (t *tallies) add(dir, bitsIdx int, aad, payload int, fail bool) {
	x := &t[dir][bitsIdx]
	atomic.AddInt64(&x.ops, 1)
	atomic.AddInt64(&x.aad, int64(aad))
	atomic.AddInt64(&x.payload, int64(payload))
	if fail {
		atomic.AddInt64(&x.tagfail, 1)
	}
}

func (t *tallies) print() {
	for d, dn := range []string{"seal", "open"} {
		for b, bits := range []int{128, 256} {
			x := t[d][b]
			if x.ops > 0 {
				fmt.Printf("expect go %s %d ops=%d aad=%d payload=%d tagfail=%d\n",
					dn, bits, x.ops, x.aad, x.payload, x.tagfail)
			}
		}
	}
}

func die(f string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "gcm_go: "+f+"\n", a...)
	os.Exit(1)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		die("not a count: %q", s)
	}
	return n
}

func aead(bits int) cipher.AEAD {
	key := make([]byte, bits/8)
	for i := range key {
		key[i] = byte(i * 7)
	}
	blk, err := aes.NewCipher(key)
	if err != nil {
		die("%v", err)
	}
	a, err := cipher.NewGCM(blk)
	if err != nil {
		die("%v", err)
	}
	return a
}

var sizes = []int{16, 64, 1420, 16384}

// One worker's share: seals, good opens and corrupted opens, sizes cycling.
func work(t *tallies, seals, opens, bad int, depth int) {
	if depth > 0 {
		// Recursion with a big frame grows the goroutine's stack; the GCM calls
		// below then run on a stack that was copied (moved) at least once.
		var pad [512]byte
		pad[depth%512] = byte(depth)
		work(t, seals, opens, bad, depth-1)
		runtime.KeepAlive(pad)
		return
	}
	nonce := make([]byte, 12)
	aad := []byte("ringside-aad")
	for bi, bits := range []int{128, 256} {
		a := aead(bits)
		for i := 0; i < seals; i++ {
			pt := make([]byte, sizes[i%len(sizes)])
			a.Seal(nil, nonce, pt, aad)
			t.add(0, bi, len(aad), len(pt), false)
		}
		for i := 0; i < opens+bad; i++ {
			pt := make([]byte, sizes[i%len(sizes)])
			ct := a.Seal(nil, nonce, pt, aad)
			t.add(0, bi, len(aad), len(pt), false)
			corrupt := i >= opens
			if corrupt {
				ct[len(ct)-1] ^= 1
			}
			_, err := a.Open(nil, nonce, ct, aad)
			if (err != nil) != corrupt {
				die("open: err=%v corrupt=%v", err, corrupt)
			}
			t.add(1, bi, len(aad), len(pt), corrupt)
		}
	}
}

var stdin = bufio.NewReader(os.Stdin)

func waitGo() {
	fmt.Printf("ready %d\n", os.Getpid())
	if _, err := stdin.ReadString('\n'); err != nil {
		die("stdin closed before the go line")
	}
}

func holdUntilEOF() {
	fmt.Println("done")
	for {
		if _, err := stdin.ReadString('\n'); err != nil {
			return
		}
	}
}

func stress(goroutines, rounds int) {
	var t tallies
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // keep the collector busy for the whole run
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				work(&t, 1, 1, i%2, 16+i%48)
				runtime.Gosched()
			}
		}(i)
	}
	wg.Wait()
	close(stop)
	t.print()
}

func tlsServer(addr, file, cert, key, vers, bits string) {
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		die("%v", err)
	}
	body, err := os.ReadFile(file)
	if err != nil {
		die("%v", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}}
	if vers == "1.2" {
		cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
		if bits == "256" {
			cfg.CipherSuites = []uint16{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384}
		} else {
			cfg.CipherSuites = []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
		}
	} else {
		// TLS 1.3 suites are not configurable in Go: the client picks AES-GCM.
		cfg.MinVersion = tls.VersionTLS13
	}
	ln, err := tls.Listen("tcp", addr, cfg)
	if err != nil {
		die("%v", err)
	}
	waitGo()
	fmt.Printf("listening %s\n", ln.Addr())
	c, err := ln.Accept()
	if err != nil {
		die("%v", err)
	}
	r := bufio.NewReader(c)
	for { // the request, up to its blank line
		l, err := r.ReadString('\n')
		if err != nil {
			die("request: %v", err)
		}
		if l == "\r\n" || l == "\n" {
			break
		}
	}
	fmt.Fprintf(c, "HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n", len(body))
	if _, err := c.Write(body); err != nil {
		die("%v", err)
	}
	// Read on to the client's own end (its close_notify, or EOF) so that
	// every record the client sealed is opened here. No close_notify back:
	// the client, done once it has the body, might not read it, and the
	// test compares the records each side seals with those the other opens.
	io.Copy(io.Discard, r)
	c.(*tls.Conn).NetConn().Close()
	ln.Close()
	fmt.Println("served")
}

func main() {
	if len(os.Args) < 2 {
		die("usage: gcm_go schedule|stress|tls-server ...")
	}
	switch os.Args[1] {
	case "schedule":
		if len(os.Args) != 5 {
			die("usage: gcm_go schedule SEALS OPENS BADTAGS")
		}
		waitGo()
		var t tallies
		work(&t, atoi(os.Args[2]), atoi(os.Args[3]), atoi(os.Args[4]), 0)
		t.print()
	case "stress":
		if len(os.Args) != 4 {
			die("usage: gcm_go stress GOROUTINES ROUNDS")
		}
		waitGo()
		stress(atoi(os.Args[2]), atoi(os.Args[3]))
	case "tls-server":
		if len(os.Args) < 6 {
			die("usage: gcm_go tls-server ADDR FILE CERT KEY [1.2|1.3] [128|256]")
		}
		vers, bits := "1.3", "128"
		if len(os.Args) > 6 {
			vers = os.Args[6]
		}
		if len(os.Args) > 7 {
			bits = os.Args[7]
		}
		tlsServer(os.Args[2], os.Args[3], os.Args[4], os.Args[5], vers, bits)
	default:
		die("unknown mode %q", os.Args[1])
	}
	holdUntilEOF()
}
