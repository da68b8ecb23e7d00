"""The browser client (浏览器客户端): static files served at `/`, and the one REST read the
client needs beyond the lobby (who sits at a table). See docs/client.md."""
