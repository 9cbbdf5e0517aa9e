#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_something() {
        let kind = classify_triangle(3.0, 4.0, 5.0);
        assert_ne!(kind, TriangleKind::Invalid);
    }
}
