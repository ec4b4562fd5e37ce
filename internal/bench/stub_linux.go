//go:build linux

package bench

func runHTTP(c *Config) ([]Point, error)    { return nil, &NotAvailable{"todo"} }
func runHTTPStd(c *Config) ([]Point, error) { return nil, &NotAvailable{"todo"} }
func runEcho(c *Config) ([]Point, error)    { return nil, &NotAvailable{"todo"} }
