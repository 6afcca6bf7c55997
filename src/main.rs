fn main() {
    println!("bench");
}
