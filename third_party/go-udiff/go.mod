module github.com/aymanbagabas/go-udiff

go 1.24
