/work/main/firmware/target/debug/deps/semver-16bf2f13d241bce7.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/version.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/version_req.rs

/work/main/firmware/target/debug/deps/libsemver-16bf2f13d241bce7.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/version.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/version_req.rs

/work/main/firmware/target/debug/deps/libsemver-16bf2f13d241bce7.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/version.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/version_req.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/version.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/semver-0.9.0/src/version_req.rs:
