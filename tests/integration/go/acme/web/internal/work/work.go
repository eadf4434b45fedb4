package work

var sink float64

//go:noinline
func AcmeWebBurn(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x += float64(i) * 0.5
	}
	sink = x
}
