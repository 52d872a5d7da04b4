import { respace } from './models/ocr/pipeline.ts';
console.log(respace('AVEMILIANOZAPATA2592INT19', 'AV EMILIANO ZAPATÁ 2592 1NT 19'), '|', respace('COLSANTAANATLAPALTITLAN', 'COL SANTA ANA TLAPALTITLÁN'), '|', respace('CAZUCENAS1404INT12','C AZUCENAS 1404 INT 12'), '|', respace('JOSEANGEL','JOSÉ ÁNGEL'));
