package lib

var sink float64

//go:noinline
func ThirdpartySecretCompute(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x += float64(i) * 0.75
	}
	sink = x
}
