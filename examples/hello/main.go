// Command hello serves "Hello, World!" with net/http, unchanged, on the
// task runtime's net.Listener (goio.On(rt).Listen): over HTTP, and over
// HTTPS with HTTP/1.1 and HTTP/2 (ALPN). /file serves a file with
// http.ServeContent from the runtime's File (goio.On(rt).OpenFile), which
// the runtime's conns send with sendfile (no user-space copy).
//
//	hello [-addr 127.0.0.1:8080] [-tls-addr 127.0.0.1:8443] [-file PATH]
//	      [-cert CERT.pem -key KEY.pem] [-executors N] [-for 10s]
//
// Without -cert and -key the HTTPS server uses a self-signed certificate
// for localhost and 127.0.0.1, made at start (curl -k, or trust it).
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio"
)

// config is what the flags set.
type config struct {
	addr, tlsAddr string // "" serves nothing there
	file          string // served at /file; "" answers 404
	cert, key     string // PEM files; "" makes a self-signed certificate
	executors     int
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "127.0.0.1:8080", "HTTP listen address (empty: none)")
	flag.StringVar(&c.tlsAddr, "tls-addr", "127.0.0.1:8443", "HTTPS listen address (empty: none)")
	flag.StringVar(&c.file, "file", "", "file served at /file with http.ServeContent")
	flag.StringVar(&c.cert, "cert", "", "certificate (PEM) for HTTPS; default: a self-signed one")
	flag.StringVar(&c.key, "key", "", "its private key (PEM)")
	flag.IntVar(&c.executors, "executors", 0, "executors (0: one per CPU)")
	d := flag.Duration("for", 0, "stop after this long (0: never)")
	flag.Parse()
	ctx := context.Background()
	if *d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *d)
		defer cancel()
	}
	err := serve(ctx, c, func(scheme, a string) { fmt.Printf("hello: serving on %s://%s\n", scheme, a) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}

// handler answers / with Hello, World! and /file with the file.
func handler(env *goio.Env, file string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Hello, World!")
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		if file == "" {
			http.NotFound(w, r)
			return
		}
		f, err := env.OpenFile(file, os.O_RDONLY, 0)
		if err != nil {
			http.Error(w, "cannot open the file", http.StatusInternalServerError)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			http.Error(w, "cannot stat the file", http.StatusInternalServerError)
			return
		}
		http.ServeContent(w, r, filepath.Base(file), fi.ModTime(), f)
	})
	return mux
}

// serve runs the servers until ctx is done; ready gets each bound
// address with its scheme.
func serve(ctx context.Context, c config, ready func(scheme, addr string)) error {
	rt, err := task.NewRuntime(c.executors)
	if err != nil {
		return err
	}
	defer rt.Close()
	env := goio.On(rt)
	h := handler(env, c.file)
	type server struct {
		srv *http.Server
		ln  net.Listener
		tls bool
	}
	var servers []server
	defer func() {
		for _, s := range servers {
			s.ln.Close()
		}
	}()
	if c.addr != "" {
		ln, err := env.Listen("tcp", c.addr)
		if err != nil {
			return err
		}
		servers = append(servers, server{&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, ln, false})
	}
	if c.tlsAddr != "" {
		cert, err := certificate(c.cert, c.key)
		if err != nil {
			return err
		}
		ln, err := env.Listen("tcp", c.tlsAddr)
		if err != nil {
			return err
		}
		servers = append(servers, server{&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
			TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}, ln, true})
	}
	if len(servers) == 0 {
		return errors.New("no address to serve on (-addr and -tls-addr are empty)")
	}
	errc := make(chan error, len(servers))
	for _, s := range servers {
		if s.tls {
			ready("https", s.ln.Addr().String())
			go func() { errc <- s.srv.ServeTLS(s.ln, "", "") }() // HTTP/2 through ALPN too
		} else {
			ready("http", s.ln.Addr().String())
			go func() { errc <- s.srv.Serve(s.ln) }()
		}
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		if err := s.srv.Shutdown(sctx); err != nil {
			return err
		}
	}
	for range servers {
		if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	return nil
}

// certificate loads the PEM pair, or makes a self-signed certificate for
// localhost and 127.0.0.1 valid for a day.
func certificate(certFile, keyFile string) (tls.Certificate, error) {
	if certFile != "" || keyFile != "" {
		return tls.LoadX509KeyPair(certFile, keyFile)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "hello (self-signed)"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
