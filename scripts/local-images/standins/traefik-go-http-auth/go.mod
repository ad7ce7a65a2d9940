module github.com/abbot/go-http-auth

go 1.24
