module example.com/acme/shared

go 1.19
