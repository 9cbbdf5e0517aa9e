<?php

declare(strict_types=1);

namespace Textkit\Tests;

require_once __DIR__ . '/../vendor/autoload.php';

use PHPUnit\Framework\TestCase;
use Textkit\Slugger;

final class SluggerTest extends TestCase
{
    public function testSlugifyJoinsWords(): void
    {
        $slugger = new Slugger();
        $this->assertSame('hello-world', $slugger->slugify('Hello, World!'));
    }

    public function testSlugifyEmpty(): void
    {
        $this->assertSame('', (new Slugger())->slugify('!!!'));
    }
}
