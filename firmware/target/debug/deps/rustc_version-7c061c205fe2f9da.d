/work/main/firmware/target/debug/deps/rustc_version-7c061c205fe2f9da.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.2.3/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.2.3/src/errors.rs

/work/main/firmware/target/debug/deps/librustc_version-7c061c205fe2f9da.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.2.3/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.2.3/src/errors.rs

/work/main/firmware/target/debug/deps/librustc_version-7c061c205fe2f9da.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.2.3/src/lib.rs /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.2.3/src/errors.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.2.3/src/lib.rs:
/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/rustc_version-0.2.3/src/errors.rs:
