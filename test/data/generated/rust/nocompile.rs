#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_a_method_that_does_not_exist() {
        assert_eq!(classify_triangle(3.0, 4.0, 5.0).area(), 6.0);
    }
}
