<?php

declare(strict_types=1);

namespace Textkit\Tests;

use PHPUnit\Framework\TestCase;
use Textkit\Slugger;

final class SlugifyStrongTest extends TestCase
{
    public function testJoinsLowerCasedWords(): void
    {
        $this->assertSame('hello-world', (new Slugger())->slugify('Hello, World!'));
        $this->assertSame('a-b-c', (new Slugger())->slugify('  a  b   c  '));
        $this->assertSame('abc123', (new Slugger())->slugify('ABC123'));
    }

    public function testTransliteratesFirst(): void
    {
        $this->assertSame('gruesse-and-more', (new Slugger())->slugify('Grüße & more'));
    }

    public function testApostrophesJoinContractions(): void
    {
        $this->assertSame('dont-stop', (new Slugger())->slugify("Don't stop"));
        $this->assertSame('rock-n-roll', (new Slugger())->slugify("rock 'n' roll"));
    }

    public function testNothingToKeepGivesEmptySlug(): void
    {
        $this->assertSame('', (new Slugger())->slugify('!!! ???'));
        $this->assertSame('', (new Slugger())->slugify(''));
    }

    public function testCustomSeparator(): void
    {
        $this->assertSame('one_two_three', (new Slugger('_'))->slugify('one two three'));
    }

    public function testMaxLengthCutsWithoutTrailingSeparator(): void
    {
        $this->assertSame('hello', (new Slugger('-', 6))->slugify('hello world'));
        $this->assertSame('hello-w', (new Slugger('-', 7))->slugify('hello world'));
        $this->assertSame('hello-world', (new Slugger('-', 11))->slugify('hello world'));
        $this->assertSame('hello-world', (new Slugger('-', 0))->slugify('hello world'));
        $this->assertSame('ab', (new Slugger('-', 1000))->slugify('AB'));
    }
}
