module enav.test/go_tls

go 1.19
