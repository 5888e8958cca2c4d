package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/troupehq/troupe/testkit"
)

// selfSigned writes a certificate for 127.0.0.1 and its key; it returns
// their paths and a pool that trusts it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	testkit.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "troupe test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	testkit.NoError(t, err)
	kb, err := x509.MarshalECPrivateKey(key)
	testkit.NoError(t, err)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	testkit.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	testkit.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600))
	cert, err := x509.ParseCertificate(der)
	testkit.NoError(t, err)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestDaemonServesTLS(t *testing.T) {
	certFile, keyFile, pool := selfSigned(t)
	d := startDaemon(t, t.TempDir(), nil, "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(d.url, "https://127.0.0.1:") {
		t.Fatalf("url %q", d.url)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest("GET", d.url+"/v1/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+d.token)
	res, err := client.Do(req)
	testkit.NoError(t, err)
	res.Body.Close()
	testkit.Equal(t, res.StatusCode, http.StatusOK)

	// With TLS any address may be listened on; a half pair is refused.
	bin := testkit.BuildTroupe(t)
	p := testkit.Start(t, bin, nil, "daemon", "--home", t.TempDir(), "--listen", "127.0.0.1:0", "--tls-cert", certFile)
	testkit.Equal(t, p.Wait(t, 20*time.Second), 2)
	if !strings.Contains(p.Stderr(), "go together") {
		t.Fatalf("stderr: %s", p.Stderr())
	}
}
