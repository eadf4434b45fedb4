module enav.test/helm_render

go 1.19
