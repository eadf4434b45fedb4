module github.com/acme/web

go 1.19

require (
	example.com/acme/shared v0.0.0
	github.com/thirdparty/lib v1.2.3
)

replace example.com/acme/shared => ../shared
