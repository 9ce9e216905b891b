# dedupcrawl worker image (docker-compose.yml builds it): the release binary on Debian slim.
FROM rust:1.94-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p dedupcrawl

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/dedupcrawl /usr/local/bin/dedupcrawl
COPY config /config
ENTRYPOINT []
CMD ["dedupcrawl", "--help"]
